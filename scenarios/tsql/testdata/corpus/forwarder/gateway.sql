-- forwarder/gateway.sql
--
-- Shape: the middle instance of a three-instance design: it hosts no Service Broker
-- application, only an endpoint with MESSAGE_FORWARDING = ENABLED (and a 10 MB forwarding
-- buffer in tempdb, MESSAGE_FORWARD_SIZE) and the routes in msdb that tell it where to pass
-- each service's messages on. Runs against gateway.example.com.
--
-- Follows: CREATE ENDPOINT (FOR SERVICE_BROKER: MESSAGE_FORWARDING, MESSAGE_FORWARD_SIZE),
-- "Service Broker message forwarding", CREATE ROUTE (routes in msdb are used for forwarding
-- and for incoming messages).

:CONNECT gateway.example.com

USE master;
GO
CREATE ENDPOINT ForwardingEndpoint
    STATE = STARTED
    AS TCP (LISTENER_PORT = 4022)
    FOR SERVICE_BROKER
    (
        AUTHENTICATION = WINDOWS NEGOTIATE,
        ENCRYPTION = SUPPORTED,
        MESSAGE_FORWARDING = ENABLED,
        MESSAGE_FORWARD_SIZE = 10
    );
GO
GRANT CONNECT ON ENDPOINT::ForwardingEndpoint TO [EXAMPLE\svc-sqlstore];
GRANT CONNECT ON ENDPOINT::ForwardingEndpoint TO [EXAMPLE\svc-sqlhq];
GO

USE msdb;
GO
-- Towards headquarters.
CREATE ROUTE ToHQ
    WITH SERVICE_NAME = N'//Retail/HQ',
         ADDRESS = N'TCP://hq.example.com:4022';
GO
-- Back towards the store.
CREATE ROUTE ToStore01
    WITH SERVICE_NAME = N'//Retail/Store01',
         ADDRESS = N'TCP://store01.branch.example.com:4022';
GO
