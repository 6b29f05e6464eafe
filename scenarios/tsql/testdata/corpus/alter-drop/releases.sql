-- alter-drop/releases.sql
--
-- Shape: a change log: the initial release of a small design followed by the migration
-- scripts of later releases, concatenated in order (how a migrations tool such as a
-- numbered-scripts runner replays them on a fresh database). It exercises every ALTER and
-- DROP form: ALTER QUEUE (STATUS, RETENTION, each ACTIVATION form, POISON_MESSAGE_HANDLING),
-- ALTER SERVICE (ADD CONTRACT, DROP CONTRACT, ON QUEUE), ALTER MESSAGE TYPE VALIDATION,
-- ALTER ROUTE, ALTER ENDPOINT, DROP of a service, queue, contract, message type, route and
-- event notification, and each VALIDATION form (NONE, EMPTY, WELL_FORMED_XML, VALID_XML WITH
-- SCHEMA COLLECTION).
--
-- Follows: ALTER QUEUE, ALTER SERVICE, ALTER MESSAGE TYPE, ALTER ROUTE, ALTER ENDPOINT,
-- DROP SERVICE, DROP QUEUE, DROP CONTRACT, DROP MESSAGE TYPE, DROP ROUTE, DROP EVENT
-- NOTIFICATION, CREATE XML SCHEMA COLLECTION (Microsoft Learn, Transact-SQL reference).

:setvar Db "InventoryDB"

/* The two warehouse servers the inventory's route moves between (release 1.4). Their team
   deploys them; they are here so that the routes have somewhere to go. */
:CONNECT wh1.example.com
CREATE DATABASE WarehouseDB;
GO
ALTER DATABASE WarehouseDB SET ENABLE_BROKER;
GO
USE WarehouseDB;
GO
CREATE MESSAGE TYPE [//Warehouse/StockQuery] VALIDATION = WELL_FORMED_XML;
CREATE CONTRACT [//Warehouse/StockContract] ([//Warehouse/StockQuery] SENT BY INITIATOR);
CREATE QUEUE StockQueue;
CREATE SERVICE [//Warehouse/Stock] ON QUEUE StockQueue ([//Warehouse/StockContract]);
GO

:CONNECT wh2.example.com
CREATE DATABASE WarehouseDB;
GO
ALTER DATABASE WarehouseDB SET ENABLE_BROKER;
GO
USE WarehouseDB;
GO
CREATE MESSAGE TYPE [//Warehouse/StockQuery] VALIDATION = WELL_FORMED_XML;
CREATE CONTRACT [//Warehouse/StockContract] ([//Warehouse/StockQuery] SENT BY INITIATOR);
CREATE QUEUE StockQueue;
CREATE SERVICE [//Warehouse/Stock] ON QUEUE StockQueue ([//Warehouse/StockContract]);
GO

/* The inventory server: everything below. */
:CONNECT inventory.example.com
USE master;
GO
IF DB_ID(N'$(Db)') IS NULL CREATE DATABASE [$(Db)];
GO
ALTER DATABASE [$(Db)] SET ENABLE_BROKER;
GO
CREATE ENDPOINT InventoryEndpoint
    STATE = STARTED
    AS TCP (LISTENER_PORT = 4022)
    FOR SERVICE_BROKER (AUTHENTICATION = WINDOWS);
GO
USE [$(Db)];
GO

/* ======================= Release 1.0: the initial design ======================= */
CREATE XML SCHEMA COLLECTION dbo.StockLevelSchema AS
N'<xs:schema xmlns:xs="http://www.w3.org/2001/XMLSchema">
    <xs:element name="level">
      <xs:complexType>
        <xs:attribute name="sku" type="xs:string" use="required"/>
        <xs:attribute name="qty" type="xs:int" use="required"/>
      </xs:complexType>
    </xs:element>
  </xs:schema>';
GO

CREATE MESSAGE TYPE [//Inventory/Ping]       VALIDATION = EMPTY;
CREATE MESSAGE TYPE [//Inventory/Note]       VALIDATION = NONE;
CREATE MESSAGE TYPE [//Inventory/Adjust]     VALIDATION = WELL_FORMED_XML;
CREATE MESSAGE TYPE [//Inventory/StockLevel] VALIDATION = VALID_XML WITH SCHEMA COLLECTION dbo.StockLevelSchema;
CREATE MESSAGE TYPE [//Inventory/Legacy];    -- VALIDATION omitted: NONE
GO

CREATE CONTRACT [//Inventory/AdjustContract]
    ([//Inventory/Adjust] SENT BY INITIATOR,
     [//Inventory/StockLevel] SENT BY TARGET,
     [//Inventory/Ping] SENT BY ANY);
CREATE CONTRACT [//Inventory/NoteContract] ([//Inventory/Note] SENT BY ANY);
CREATE CONTRACT [//Inventory/LegacyContract] ([//Inventory/Legacy] SENT BY INITIATOR);
GO

CREATE QUEUE dbo.AdjustQueue
    WITH ACTIVATION (STATUS = ON, PROCEDURE_NAME = dbo.ApplyAdjustments,
                     MAX_QUEUE_READERS = 1, EXECUTE AS OWNER);
CREATE QUEUE dbo.AdjustQueueV2;
CREATE QUEUE dbo.ClientQueue;
CREATE QUEUE dbo.LegacyQueue;
CREATE QUEUE dbo.NotifyQueue;
GO

CREATE SERVICE [//Inventory/Adjust] ON QUEUE dbo.AdjustQueue ([//Inventory/AdjustContract]);
CREATE SERVICE [//Inventory/Client] ON QUEUE dbo.ClientQueue;
CREATE SERVICE [//Inventory/Legacy] ON QUEUE dbo.LegacyQueue ([//Inventory/LegacyContract]);
CREATE SERVICE [//Inventory/Notify] ON QUEUE dbo.NotifyQueue
    ([http://schemas.microsoft.com/SQL/Notifications/PostEventNotification]);
GO

CREATE ROUTE WarehouseRoute
    WITH SERVICE_NAME = N'//Warehouse/Stock',
         ADDRESS = N'TCP://wh1.example.com:4022';
-- The mainframe gateway was reached through the dynamic routing of the day: TRANSPORT.
CREATE ROUTE OldMainframeRoute
    WITH SERVICE_NAME = N'//Mainframe/Inventory',
         ADDRESS = N'TRANSPORT',
         LIFETIME = 86400;
GO

CREATE EVENT NOTIFICATION LegacyQueueActivation
    ON QUEUE dbo.LegacyQueue
    FOR QUEUE_ACTIVATION
    TO SERVICE N'//Inventory/Notify', N'current database';
GO

CREATE PROCEDURE dbo.ApplyAdjustments
AS
BEGIN
    SET NOCOUNT ON;
    DECLARE @h UNIQUEIDENTIFIER, @t SYSNAME;
    WHILE 1 = 1
    BEGIN
        BEGIN TRAN;
        WAITFOR (RECEIVE TOP (1) @h = conversation_handle, @t = message_type_name
                 FROM dbo.AdjustQueue), TIMEOUT 5000;
        IF @@ROWCOUNT = 0 BEGIN ROLLBACK TRAN; BREAK; END
        IF @t = N'//Inventory/Adjust'
        BEGIN
            SEND ON CONVERSATION @h MESSAGE TYPE [//Inventory/StockLevel] (N'<level sku="A1" qty="3"/>');
        END
        ELSE IF @t = N'http://schemas.microsoft.com/SQL/ServiceBroker/EndDialog'
            END CONVERSATION @h;
        ELSE IF @t = N'http://schemas.microsoft.com/SQL/ServiceBroker/Error'
            END CONVERSATION @h;
        COMMIT TRAN;
    END
END
GO

/* ============ Release 1.1: maintenance window, then more readers ============ */
ALTER QUEUE dbo.AdjustQueue WITH STATUS = OFF;
GO
ALTER QUEUE dbo.AdjustQueue WITH ACTIVATION (STATUS = OFF);
GO
ALTER QUEUE dbo.AdjustQueue WITH STATUS = ON, ACTIVATION (MAX_QUEUE_READERS = 5);
GO
ALTER QUEUE dbo.AdjustQueue WITH ACTIVATION (STATUS = ON);
GO
-- Each EXECUTE AS form.
ALTER QUEUE dbo.AdjustQueue WITH ACTIVATION (EXECUTE AS SELF);
GO
ALTER QUEUE dbo.AdjustQueue WITH ACTIVATION (EXECUTE AS 'InventoryWorker');
GO
ALTER QUEUE [dbo].[AdjustQueue]
    WITH ACTIVATION (PROCEDURE_NAME = [dbo].[ApplyAdjustments], EXECUTE AS OWNER);
GO
ALTER QUEUE dbo.ClientQueue WITH RETENTION = ON;
GO
ALTER QUEUE dbo.ClientQueue WITH POISON_MESSAGE_HANDLING (STATUS = OFF);
GO

/* ========= Release 1.2: the service moves to a new queue; contracts change ========= */
CREATE OR ALTER PROCEDURE dbo.ApplyAdjustmentsV2
AS
BEGIN
    SET NOCOUNT ON;
    DECLARE @h UNIQUEIDENTIFIER, @t SYSNAME;
    WHILE 1 = 1
    BEGIN
        BEGIN TRAN;
        WAITFOR (RECEIVE TOP (1) @h = conversation_handle, @t = message_type_name
                 FROM dbo.AdjustQueueV2), TIMEOUT 5000;
        IF @@ROWCOUNT = 0 BEGIN ROLLBACK TRAN; BREAK; END
        IF @t = N'//Inventory/Adjust'
            SEND ON CONVERSATION @h MESSAGE TYPE [//Inventory/StockLevel] (N'<level sku="A1" qty="3"/>');
        ELSE IF @t IN (N'http://schemas.microsoft.com/SQL/ServiceBroker/EndDialog',
                       N'http://schemas.microsoft.com/SQL/ServiceBroker/Error')
            END CONVERSATION @h;
        COMMIT TRAN;
    END
END
GO
ALTER QUEUE dbo.AdjustQueueV2
    WITH ACTIVATION (STATUS = ON, PROCEDURE_NAME = dbo.ApplyAdjustmentsV2,
                     MAX_QUEUE_READERS = 5, EXECUTE AS OWNER);
GO
ALTER SERVICE [//Inventory/Adjust] ON QUEUE dbo.AdjustQueueV2;
GO
ALTER SERVICE [//Inventory/Adjust] (ADD CONTRACT [//Inventory/NoteContract]);
GO
ALTER SERVICE [//Inventory/Legacy] (DROP CONTRACT [//Inventory/LegacyContract]);
GO
ALTER SERVICE [//Inventory/Client]
    ON QUEUE dbo.ClientQueue
    (ADD CONTRACT [//Inventory/NoteContract]);
GO
-- The old queue keeps its activation until it is empty, then loses it.
ALTER QUEUE dbo.AdjustQueue WITH ACTIVATION (DROP);
GO

/* ======================= Release 1.3: validation changes ======================= */
ALTER MESSAGE TYPE [//Inventory/Note] VALIDATION = WELL_FORMED_XML;
GO
ALTER MESSAGE TYPE [//Inventory/Adjust]
    VALIDATION = VALID_XML WITH SCHEMA COLLECTION dbo.StockLevelSchema;
GO
ALTER MESSAGE TYPE [//Inventory/StockLevel] VALIDATION = NONE;
GO
ALTER MESSAGE TYPE [//Inventory/Ping] VALIDATION = EMPTY;
GO

/* ===================== Release 1.4: routing and the endpoint ===================== */
ALTER ROUTE WarehouseRoute
    WITH ADDRESS = N'TCP://wh2.example.com:4022';
GO
ALTER ROUTE WarehouseRoute
    WITH SERVICE_NAME = N'//Warehouse/Stock',
         BROKER_INSTANCE = N'5E0C2A91-3D47-4B8E-A1F6-9C7D2B4E8F00',
         ADDRESS = N'TCP://wh2.example.com:4022';
GO
USE master;
GO
ALTER ENDPOINT InventoryEndpoint
    FOR SERVICE_BROKER (MESSAGE_FORWARDING = ENABLED, MESSAGE_FORWARD_SIZE = 20);
GO
ALTER ENDPOINT InventoryEndpoint STATE = STARTED
    FOR SERVICE_BROKER (MESSAGE_FORWARDING = DISABLED);
GO
USE [$(Db)];
GO

/* ===================== Release 2.0: the legacy path is retired ===================== */
DROP EVENT NOTIFICATION LegacyQueueActivation ON QUEUE dbo.LegacyQueue;
GO
DROP SERVICE [//Inventory/Legacy];
GO
DROP QUEUE dbo.LegacyQueue;
GO
DROP CONTRACT [//Inventory/LegacyContract];
GO
DROP MESSAGE TYPE [//Inventory/Legacy];
GO
DROP ROUTE OldMainframeRoute;
GO
-- The now unused first queue.
DROP QUEUE dbo.AdjustQueue;
GO
