-- between-databases/setup.sql
--
-- Shape: the tutorial "Completing a Conversation Between Databases": two databases on one
-- instance, the initiator in InitiatorDB and the target in TargetDB, one script that
-- switches between them with USE. Both databases define the same message types and contract
-- (a conversation's contract must exist by name on both sides). Routing needs nothing: the
-- AutoCreatedLocal route of each database finds the other database's service on the same
-- instance. TRUSTWORTHY is not needed for the exchange itself and is not set.
--
-- Follows: the tutorial "Completing a Conversation Between Databases" (lessons 1 to 4),
-- CREATE MESSAGE TYPE, CREATE CONTRACT, CREATE QUEUE, CREATE SERVICE, ALTER DATABASE
-- SET ENABLE_BROKER.

USE master;
GO
IF DB_ID(N'TargetDB') IS NULL CREATE DATABASE TargetDB;
GO
IF DB_ID(N'InitiatorDB') IS NULL CREATE DATABASE InitiatorDB;
GO
ALTER DATABASE TargetDB SET ENABLE_BROKER;
ALTER DATABASE InitiatorDB SET ENABLE_BROKER;
GO

/* ---------------------------- the target database ---------------------------- */
USE TargetDB;
GO
CREATE MESSAGE TYPE [//Tutorial/2DB/Request] VALIDATION = WELL_FORMED_XML;
CREATE MESSAGE TYPE [//Tutorial/2DB/Reply]   VALIDATION = WELL_FORMED_XML;
GO
CREATE CONTRACT [//Tutorial/2DB/Contract]
    ([//Tutorial/2DB/Request] SENT BY INITIATOR,
     [//Tutorial/2DB/Reply]   SENT BY TARGET);
GO
CREATE QUEUE [dbo].[TargetQueue2DB];
CREATE SERVICE [//Tutorial/2DB/TargetService]
    ON QUEUE [dbo].[TargetQueue2DB] ([//Tutorial/2DB/Contract]);
GO

CREATE PROCEDURE [dbo].[TargetQueue2DB_Activated]
AS
BEGIN
    SET NOCOUNT ON;
    DECLARE @h UNIQUEIDENTIFIER, @t SYSNAME, @b XML;

    WHILE 1 = 1
    BEGIN
        BEGIN TRY
            BEGIN TRAN;
            WAITFOR (RECEIVE TOP (1) @h = conversation_handle, @t = message_type_name,
                                     @b = CAST(message_body AS XML)
                     FROM [dbo].[TargetQueue2DB]), TIMEOUT 3000;
            IF @@ROWCOUNT = 0
            BEGIN
                ROLLBACK TRAN;
                BREAK;
            END

            IF @t = N'//Tutorial/2DB/Request'
            BEGIN
                SEND ON CONVERSATION @h MESSAGE TYPE [//Tutorial/2DB/Reply] (N'<Reply/>');
                END CONVERSATION @h;
            END
            ELSE IF @t IN (N'http://schemas.microsoft.com/SQL/ServiceBroker/EndDialog',
                           N'http://schemas.microsoft.com/SQL/ServiceBroker/Error')
                END CONVERSATION @h;

            COMMIT TRAN;
        END TRY
        BEGIN CATCH
            IF @@TRANCOUNT > 0 ROLLBACK TRAN;
            THROW;
        END CATCH
    END
END
GO
ALTER QUEUE [dbo].[TargetQueue2DB]
    WITH ACTIVATION (STATUS = ON, PROCEDURE_NAME = [dbo].[TargetQueue2DB_Activated],
                     MAX_QUEUE_READERS = 3, EXECUTE AS OWNER);
GO

/* --------------------------- the initiator database --------------------------- */
USE InitiatorDB;
GO
CREATE MESSAGE TYPE [//Tutorial/2DB/Request] VALIDATION = WELL_FORMED_XML;
CREATE MESSAGE TYPE [//Tutorial/2DB/Reply]   VALIDATION = WELL_FORMED_XML;
GO
CREATE CONTRACT [//Tutorial/2DB/Contract]
    ([//Tutorial/2DB/Request] SENT BY INITIATOR,
     [//Tutorial/2DB/Reply]   SENT BY TARGET);
GO
CREATE QUEUE dbo.InitiatorQueue2DB;
CREATE SERVICE [//Tutorial/2DB/InitiatorService] ON QUEUE dbo.InitiatorQueue2DB;
GO
-- The initiator reads replies by hand (lesson 3 of the tutorial): no activation here.
-- The importer must give this queue its default reader.
USE TargetDB;
GO
-- A second look at the target after the initiator is set up: the switch back is what
-- deployment scripts do when one database's object depends on the other's.
ALTER QUEUE [dbo].[TargetQueue2DB] WITH STATUS = ON;
GO
