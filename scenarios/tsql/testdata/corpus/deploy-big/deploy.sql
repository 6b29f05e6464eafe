/*
    deploy-big/deploy.sql

    Shape: one big release script, run with `sqlcmd -i deploy.sql` (SQLCMD mode), that a
    DBA team keeps in source control and re-runs on every release. Idempotent: each CREATE
    is guarded by IF NOT EXISTS against the catalog views (sys.service_message_types,
    sys.service_contracts, sys.service_queues, sys.services, sys.routes), so a second run
    changes nothing. Values that differ per environment are sqlcmd variables, the server
    names too: the orders server (Server) and, at the end, the warehouse (Remote).

    Follows: CREATE MESSAGE TYPE, CREATE CONTRACT, CREATE QUEUE, CREATE SERVICE,
    CREATE ROUTE, ALTER DATABASE SET options (ENABLE_BROKER, HONOR_BROKER_PRIORITY),
    CREATE BROKER PRIORITY (Microsoft Learn, Transact-SQL reference), and the sqlcmd
    utility's "Use sqlcmd with scripting variables" page for :setvar and variable references,
    and its :CONNECT command: the last section deploys the warehouse side on the server
    the Remote variable names, so that the route to it has somewhere to go.
*/
:setvar Server "OrdersSrv"
:setvar DbName "OrdersDb"
:setvar Remote "Warehouse"
:on error exit
:CONNECT $(Server)

SET NOCOUNT ON;
GO

USE [master];
GO

IF NOT EXISTS (SELECT * FROM sys.endpoints WHERE type_desc = N'SERVICE_BROKER')
    CREATE ENDPOINT [SsbEndpoint]
        STATE = STARTED
        AS TCP (LISTENER_PORT = 4022)
        FOR SERVICE_BROKER (AUTHENTICATION = WINDOWS);
GO

IF DB_ID(N'$(DbName)') IS NULL
BEGIN
    CREATE DATABASE [$(DbName)];
END
GO

-- The broker must be on before any conversation can begin; WITH ROLLBACK IMMEDIATE kicks
-- out sessions that would block the ALTER.
IF EXISTS (SELECT 1 FROM sys.databases WHERE name = N'$(DbName)' AND is_broker_enabled = 0)
    ALTER DATABASE [$(DbName)] SET ENABLE_BROKER WITH ROLLBACK IMMEDIATE;
GO

ALTER DATABASE [$(DbName)] SET HONOR_BROKER_PRIORITY ON;
GO

USE [$(DbName)];
GO

PRINT N'Deploying Service Broker objects to $(DbName)...';
GO

------------------------------------------------------------------------------------------
-- Message types
------------------------------------------------------------------------------------------
IF NOT EXISTS (SELECT * FROM sys.service_message_types WHERE name = N'//Contoso/Orders/SubmitOrder')
    CREATE MESSAGE TYPE [//Contoso/Orders/SubmitOrder]
        AUTHORIZATION [dbo]
        VALIDATION = WELL_FORMED_XML;
GO

IF NOT EXISTS (SELECT * FROM sys.service_message_types WHERE name = N'//Contoso/Orders/OrderAccepted')
    CREATE MESSAGE TYPE [//Contoso/Orders/OrderAccepted] VALIDATION = WELL_FORMED_XML;
GO

IF NOT EXISTS (SELECT * FROM sys.service_message_types WHERE name = N'//Contoso/Orders/StockRequest')
    create message type [//Contoso/Orders/StockRequest] validation = none;
GO

IF NOT EXISTS (SELECT * FROM sys.service_message_types WHERE name = N'//Contoso/Orders/StockReply')
    CREATE MESSAGE TYPE [//Contoso/Orders/StockReply] VALIDATION = NONE;
GO

------------------------------------------------------------------------------------------
-- Contracts
------------------------------------------------------------------------------------------
IF NOT EXISTS (SELECT * FROM sys.service_contracts WHERE name = N'//Contoso/Orders/OrderContract')
    CREATE CONTRACT [//Contoso/Orders/OrderContract]
    (
        [//Contoso/Orders/SubmitOrder]   SENT BY INITIATOR,
        [//Contoso/Orders/OrderAccepted] SENT BY TARGET
    );
GO

IF NOT EXISTS (SELECT * FROM sys.service_contracts WHERE name = N'//Contoso/Orders/StockContract')
    CREATE CONTRACT [//Contoso/Orders/StockContract]
        ([//Contoso/Orders/StockRequest] SENT BY INITIATOR,
         [//Contoso/Orders/StockReply]   SENT BY TARGET);
GO

------------------------------------------------------------------------------------------
-- Queues. The activation procedure is created further down; a queue may name a procedure
-- that does not exist yet as long as activation stays OFF until it does.
------------------------------------------------------------------------------------------
IF NOT EXISTS (SELECT * FROM sys.service_queues WHERE name = N'OrderIntakeQueue')
    CREATE QUEUE [dbo].[OrderIntakeQueue]
        WITH STATUS = ON,
             RETENTION = OFF,
             ACTIVATION (
                 STATUS = OFF,
                 PROCEDURE_NAME = [dbo].[usp_OrderIntake_Activated],
                 MAX_QUEUE_READERS = 4,
                 EXECUTE AS OWNER
             ),
             POISON_MESSAGE_HANDLING (STATUS = ON)
        ON [DEFAULT];
GO

IF NOT EXISTS (SELECT * FROM sys.service_queues WHERE name = N'StockClientQueue')
    CREATE QUEUE dbo.StockClientQueue;   -- all defaults: STATUS ON, no activation
GO

------------------------------------------------------------------------------------------
-- Services
------------------------------------------------------------------------------------------
IF NOT EXISTS (SELECT * FROM sys.services WHERE name = N'//Contoso/Orders/OrderIntakeService')
    CREATE SERVICE [//Contoso/Orders/OrderIntakeService]
        AUTHORIZATION [dbo]
        ON QUEUE [dbo].[OrderIntakeQueue]
        ([//Contoso/Orders/OrderContract]);
GO

-- The initiating side of the stock check: it names no contract, since only a target
-- service needs to list the contracts it accepts.
IF NOT EXISTS (SELECT * FROM sys.services WHERE name = N'//Contoso/Orders/StockClientService')
    CREATE SERVICE [//Contoso/Orders/StockClientService] ON QUEUE dbo.StockClientQueue;
GO

------------------------------------------------------------------------------------------
-- Route to the warehouse's stock service on the remote instance $(Remote)
------------------------------------------------------------------------------------------
IF NOT EXISTS (SELECT * FROM sys.routes WHERE name = N'$(Remote)StockRoute')
    CREATE ROUTE [$(Remote)StockRoute]
        WITH SERVICE_NAME = N'//Contoso/$(Remote)/StockService',
             ADDRESS = N'TCP://$(Remote):4022';
GO

------------------------------------------------------------------------------------------
-- Priorities: orders before stock checks.
------------------------------------------------------------------------------------------
IF NOT EXISTS (SELECT * FROM sys.conversation_priorities WHERE name = N'OrderPriority')
    CREATE BROKER PRIORITY [OrderPriority]
        FOR CONVERSATION
        SET (CONTRACT_NAME = [//Contoso/Orders/OrderContract],
             LOCAL_SERVICE_NAME = ANY,
             REMOTE_SERVICE_NAME = ANY,
             PRIORITY_LEVEL = 8);
GO

IF NOT EXISTS (SELECT * FROM sys.conversation_priorities WHERE name = N'StockPriority')
    CREATE BROKER PRIORITY StockPriority FOR CONVERSATION
        SET (CONTRACT_NAME = [//Contoso/Orders/StockContract], PRIORITY_LEVEL = 3);
GO

------------------------------------------------------------------------------------------
-- Tables the activation procedure writes (not modelled)
------------------------------------------------------------------------------------------
IF OBJECT_ID(N'dbo.IncomingOrders', N'U') IS NULL
    CREATE TABLE dbo.IncomingOrders
    (
        OrderId        INT IDENTITY(1, 1) NOT NULL CONSTRAINT PK_IncomingOrders PRIMARY KEY,
        ConversationId UNIQUEIDENTIFIER   NOT NULL,
        Body           XML                NULL,
        ReceivedAt     DATETIME2(3)       NOT NULL CONSTRAINT DF_IncomingOrders_ReceivedAt DEFAULT SYSUTCDATETIME()
    );
GO

------------------------------------------------------------------------------------------
-- The activation procedure: drains OrderIntakeQueue one message at a time, accepts each
-- order with a reply, ends the conversation on EndDialog or Error.
------------------------------------------------------------------------------------------
CREATE OR ALTER PROCEDURE [dbo].[usp_OrderIntake_Activated]
AS
BEGIN
    SET NOCOUNT ON;
    SET XACT_ABORT ON;

    DECLARE @handle   UNIQUEIDENTIFIER,
            @msgType  SYSNAME,
            @body     VARBINARY(MAX);

    WHILE (1 = 1)
    BEGIN
        BEGIN TRY
            BEGIN TRANSACTION;

            WAITFOR (
                RECEIVE TOP (1)
                    @handle  = conversation_handle,
                    @msgType = message_type_name,
                    @body    = message_body
                FROM [dbo].[OrderIntakeQueue]
            ), TIMEOUT 5000;

            IF (@@ROWCOUNT = 0)
            BEGIN
                ROLLBACK TRANSACTION;
                BREAK;
            END

            IF @msgType = N'//Contoso/Orders/SubmitOrder'
            BEGIN
                INSERT INTO dbo.IncomingOrders (ConversationId, Body)
                VALUES (@handle, CAST(@body AS XML));

                SEND ON CONVERSATION @handle
                    MESSAGE TYPE [//Contoso/Orders/OrderAccepted]
                    (N'<accepted/>');

                END CONVERSATION @handle;
            END
            ELSE IF @msgType = N'http://schemas.microsoft.com/SQL/ServiceBroker/EndDialog'
            BEGIN
                END CONVERSATION @handle;
            END
            ELSE IF @msgType = N'http://schemas.microsoft.com/SQL/ServiceBroker/Error'
            BEGIN
                END CONVERSATION @handle;
            END

            COMMIT TRANSACTION;
        END TRY
        BEGIN CATCH
            IF XACT_STATE() <> 0 ROLLBACK TRANSACTION;
            THROW;
        END CATCH
    END
END
GO

-- Now that the procedure exists, turn activation on.
ALTER QUEUE [dbo].[OrderIntakeQueue] WITH ACTIVATION (STATUS = ON);
GO

PRINT N'Done: $(DbName) is ready.';
GO

------------------------------------------------------------------------------------------
-- The warehouse side, on $(Remote): the stock service the orders database routes to, and
-- the route back to the orders' stock client.
------------------------------------------------------------------------------------------
:CONNECT $(Remote)

USE [master];
GO
IF NOT EXISTS (SELECT * FROM sys.endpoints WHERE type_desc = N'SERVICE_BROKER')
    CREATE ENDPOINT [SsbEndpoint]
        STATE = STARTED
        AS TCP (LISTENER_PORT = 4022)
        FOR SERVICE_BROKER (AUTHENTICATION = WINDOWS);
GO
IF DB_ID(N'$(Remote)Db') IS NULL
    CREATE DATABASE [$(Remote)Db];
GO
ALTER DATABASE [$(Remote)Db] SET ENABLE_BROKER WITH ROLLBACK IMMEDIATE;
GO
USE [$(Remote)Db];
GO
IF NOT EXISTS (SELECT * FROM sys.service_message_types WHERE name = N'//Contoso/Orders/StockRequest')
    CREATE MESSAGE TYPE [//Contoso/Orders/StockRequest] VALIDATION = NONE;
IF NOT EXISTS (SELECT * FROM sys.service_message_types WHERE name = N'//Contoso/Orders/StockReply')
    CREATE MESSAGE TYPE [//Contoso/Orders/StockReply] VALIDATION = NONE;
GO
IF NOT EXISTS (SELECT * FROM sys.service_contracts WHERE name = N'//Contoso/Orders/StockContract')
    CREATE CONTRACT [//Contoso/Orders/StockContract]
        ([//Contoso/Orders/StockRequest] SENT BY INITIATOR,
         [//Contoso/Orders/StockReply]   SENT BY TARGET);
GO
IF NOT EXISTS (SELECT * FROM sys.service_queues WHERE name = N'StockQueue')
    CREATE QUEUE [dbo].[StockQueue] WITH STATUS = ON;
GO
IF NOT EXISTS (SELECT * FROM sys.services WHERE name = N'//Contoso/$(Remote)/StockService')
    CREATE SERVICE [//Contoso/$(Remote)/StockService]
        ON QUEUE [dbo].[StockQueue] ([//Contoso/Orders/StockContract]);
GO
IF NOT EXISTS (SELECT * FROM sys.routes WHERE name = N'OrdersStockClientRoute')
    CREATE ROUTE [OrdersStockClientRoute]
        WITH SERVICE_NAME = N'//Contoso/Orders/StockClientService',
             ADDRESS = N'TCP://$(Server):4022';
GO
