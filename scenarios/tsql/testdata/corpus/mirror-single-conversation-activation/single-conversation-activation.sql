-- mirror-single-conversation-activation/single-conversation-activation.sql
--
-- MIRRORS scenarios/file/library/single-conversation-activation.yaml: importing this script
-- must give exactly that file's catalog (a round-trip test).
--   :CONNECT Client  -> the instance Client, with the database Client
--   :CONNECT Server  -> the instance Server, with the database Server
-- Names are written unqualified (no dbo.) so that they are the library's names as they are.
-- There is deliberately no CREATE ROUTE: the library file declares none and relies on the
-- routes sbsim makes for a world without routes (docs/routing.md, "Worlds without routes");
-- a real deployment would add a route each way (see cross-instance/). No USE master either:
-- the connection's default database is master, and a USEd database would be a catalog
-- database. The endpoints have no MESSAGE_FORWARDING, as the library's instances have no
-- forwarding.
--
-- Shape: a two-server deployment in one SQLCMD-mode script, :CONNECT switching server.
-- Follows: sqlcmd's :CONNECT command, CREATE ENDPOINT (FOR SERVICE_BROKER), CREATE MESSAGE
-- TYPE, CREATE CONTRACT, CREATE QUEUE (ACTIVATION, MAX_QUEUE_READERS), CREATE SERVICE,
-- WAITFOR (RECEIVE), "Service Broker activation".

:CONNECT Client

CREATE ENDPOINT SsbEndpoint STATE = STARTED
    AS TCP (LISTENER_PORT = 4022)
    FOR SERVICE_BROKER (AUTHENTICATION = WINDOWS);
GO
CREATE DATABASE [Client];
GO
ALTER DATABASE [Client] SET ENABLE_BROKER;
GO
USE [Client];
GO
CREATE MESSAGE TYPE [Work] VALIDATION = NONE;
GO
CREATE CONTRACT [//sbsim/Work] ([Work] SENT BY INITIATOR);
GO
CREATE QUEUE ClientQueue;
GO
CREATE SERVICE ClientService ON QUEUE ClientQueue;
GO

:CONNECT Server

CREATE ENDPOINT SsbEndpoint STATE = STARTED
    AS TCP (LISTENER_PORT = 4022)
    FOR SERVICE_BROKER (AUTHENTICATION = WINDOWS);
GO
CREATE DATABASE [Server];
GO
ALTER DATABASE [Server] SET ENABLE_BROKER;
GO
USE [Server];
GO
CREATE MESSAGE TYPE [Work] VALIDATION = NONE;
GO
CREATE CONTRACT [//sbsim/Work] ([Work] SENT BY INITIATOR);
GO

-- The library's procedure DoWork: RECEIVE TOP(1), 100 ms of work per message (here the
-- WAITFOR DELAY stands for it), the default 5 s WAITFOR TIMEOUT after which the task exits.
CREATE PROCEDURE DoWork
AS
BEGIN
    SET NOCOUNT ON;
    DECLARE @h UNIQUEIDENTIFIER, @type SYSNAME, @body VARBINARY(MAX);
    WHILE (1 = 1)
    BEGIN
        BEGIN TRANSACTION;
        WAITFOR (RECEIVE TOP (1) @h = conversation_handle, @type = message_type_name,
                                 @body = message_body
                 FROM WorkQueue), TIMEOUT 5000;
        IF @@ROWCOUNT = 0
        BEGIN
            ROLLBACK TRANSACTION;
            BREAK;
        END
        IF @type = N'Work'
            WAITFOR DELAY '00:00:00.100';
        ELSE IF @type = N'http://schemas.microsoft.com/SQL/ServiceBroker/EndDialog'
            END CONVERSATION @h;
        ELSE IF @type = N'http://schemas.microsoft.com/SQL/ServiceBroker/Error'
            END CONVERSATION @h;
        COMMIT TRANSACTION;
    END
END
GO
CREATE QUEUE WorkQueue
    WITH ACTIVATION (STATUS = ON, PROCEDURE_NAME = DoWork, MAX_QUEUE_READERS = 5,
                     EXECUTE AS OWNER);
GO
CREATE SERVICE WorkService ON QUEUE WorkQueue ([//sbsim/Work]);
GO
