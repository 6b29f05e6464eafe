-- forwarder/hq.sql
--
-- Shape: the target of a three-instance forwarding design (see store.sql and gateway.sql),
-- run against hq.example.com. The acknowledgements go back through the gateway: the route to
-- the store's service names the gateway's address, not the store's.
--
-- Follows: CREATE ENDPOINT (FOR SERVICE_BROKER), CREATE ROUTE, CREATE QUEUE (ACTIVATION),
-- "Service Broker message forwarding".

:CONNECT hq.example.com

USE master;
GO
CREATE ENDPOINT [BrokerEndpoint]
    STATE = STARTED
    AS TCP (LISTENER_PORT = 4022)
    FOR SERVICE_BROKER (AUTHENTICATION = WINDOWS NEGOTIATE, ENCRYPTION = SUPPORTED);
GO
GRANT CONNECT ON ENDPOINT::[BrokerEndpoint] TO [EXAMPLE\svc-sqlgateway];
GO
IF DB_ID(N'HQDB') IS NULL CREATE DATABASE HQDB;
GO
ALTER DATABASE HQDB SET ENABLE_BROKER;
GO
USE HQDB;
GO
CREATE MESSAGE TYPE [//Retail/Sale] VALIDATION = WELL_FORMED_XML;
CREATE MESSAGE TYPE [//Retail/SaleAck] VALIDATION = EMPTY;
GO
CREATE CONTRACT [//Retail/SaleContract]
    ([//Retail/Sale] SENT BY INITIATOR, [//Retail/SaleAck] SENT BY TARGET);
GO
CREATE QUEUE dbo.SalesQueue
    WITH STATUS = ON,
    ACTIVATION (PROCEDURE_NAME = dbo.RecordSales, MAX_QUEUE_READERS = 4, EXECUTE AS OWNER);
GO
CREATE SERVICE [//Retail/HQ] ON QUEUE dbo.SalesQueue ([//Retail/SaleContract]);
GO
CREATE ROUTE [Store01 via gateway]
    WITH SERVICE_NAME = N'//Retail/Store01',
         ADDRESS = N'TCP://gateway.example.com:4022';
GO

-- Up to 20 sales per transaction, an empty acknowledgement for each conversation.
CREATE PROCEDURE dbo.RecordSales
AS
BEGIN
    SET NOCOUNT ON;
    DECLARE @batch TABLE (
        conversation_handle UNIQUEIDENTIFIER,
        message_type_name   SYSNAME,
        message_body        VARBINARY(MAX));
    DECLARE @h UNIQUEIDENTIFIER;

    WHILE 1 = 1
    BEGIN
        BEGIN TRANSACTION;
        WAITFOR (
            RECEIVE TOP (20) conversation_handle, message_type_name, message_body
            FROM dbo.SalesQueue
            INTO @batch
        ), TIMEOUT 2000;

        IF @@ROWCOUNT = 0
        BEGIN
            ROLLBACK TRANSACTION;
            BREAK;
        END

        -- One acknowledgement per sale, then end: the store ends its side on the EndDialog.
        DECLARE sale CURSOR LOCAL FAST_FORWARD FOR
            SELECT conversation_handle FROM @batch WHERE message_type_name = N'//Retail/Sale';
        OPEN sale;
        FETCH NEXT FROM sale INTO @h;
        WHILE @@FETCH_STATUS = 0
        BEGIN
            SEND ON CONVERSATION @h MESSAGE TYPE [//Retail/SaleAck];
            END CONVERSATION @h;
            FETCH NEXT FROM sale INTO @h;
        END
        CLOSE sale;
        DEALLOCATE sale;

        DECLARE done CURSOR LOCAL FAST_FORWARD FOR
            SELECT conversation_handle FROM @batch
            WHERE message_type_name IN (N'http://schemas.microsoft.com/SQL/ServiceBroker/EndDialog',
                                        N'http://schemas.microsoft.com/SQL/ServiceBroker/Error');
        OPEN done;
        FETCH NEXT FROM done INTO @h;
        WHILE @@FETCH_STATUS = 0
        BEGIN
            END CONVERSATION @h;
            FETCH NEXT FROM done INTO @h;
        END
        CLOSE done;
        DEALLOCATE done;

        DELETE FROM @batch;
        COMMIT TRANSACTION;
    END
END
GO
