-- forwarder/store.sql
--
-- Shape: the initiator of a three-instance forwarding design, one of three scripts the DBA
-- runs in SQLCMD mode (store.sql, gateway.sql, hq.sql). The store sits in a branch network
-- that cannot reach headquarters directly; its database routes the headquarters' service to
-- the gateway instance, which forwards. Windows authentication on the endpoints (one domain).
--
-- Follows: "Service Broker message forwarding" (forwarding needs routes in the forwarder's
-- msdb), CREATE ENDPOINT (FOR SERVICE_BROKER), CREATE ROUTE.

:CONNECT store01.branch.example.com

USE [master];
GO
CREATE ENDPOINT [BrokerEndpoint]
    STATE = STARTED
    AS TCP (LISTENER_PORT = 4022)
    FOR SERVICE_BROKER (AUTHENTICATION = WINDOWS NEGOTIATE, ENCRYPTION = SUPPORTED);
GO
GRANT CONNECT ON ENDPOINT::[BrokerEndpoint] TO [EXAMPLE\svc-sqlgateway];
GO

IF DB_ID(N'StoreDB') IS NULL CREATE DATABASE [StoreDB];
GO
ALTER DATABASE [StoreDB] SET ENABLE_BROKER;
GO
USE [StoreDB];
GO
CREATE MESSAGE TYPE [//Retail/Sale] VALIDATION = WELL_FORMED_XML;
CREATE MESSAGE TYPE [//Retail/SaleAck] VALIDATION = EMPTY;
GO
CREATE CONTRACT [//Retail/SaleContract]
    ([//Retail/Sale] SENT BY INITIATOR, [//Retail/SaleAck] SENT BY TARGET);
GO
CREATE QUEUE dbo.StoreQueue;
CREATE SERVICE [//Retail/Store01] ON QUEUE dbo.StoreQueue;
GO
-- Everything for headquarters goes to the gateway.
CREATE ROUTE [HQ via gateway]
    WITH SERVICE_NAME = N'//Retail/HQ',
         ADDRESS = N'TCP://gateway.example.com:4022';
GO
