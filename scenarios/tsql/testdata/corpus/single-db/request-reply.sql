-- single-db/request-reply.sql
--
-- Shape: the request/reply exchange of the Service Broker tutorial "Completing a
-- Conversation in a Single Database", turned into what people then deploy: both services in
-- one database, the target's queue activated by a procedure that replies and ends the
-- conversation, the initiator's queue activated by a procedure that ends its side on the
-- EndDialog. One instance, one database (TutorialDB), no routes (AutoCreatedLocal delivers).
--
-- Follows: the tutorial "Completing a Conversation in a Single Database" (lessons 1 to 3:
-- create the objects, begin a conversation and send, receive and reply, end), CREATE QUEUE
-- (ACTIVATION), BEGIN DIALOG CONVERSATION, SEND, RECEIVE, END CONVERSATION.

USE master;
GO
IF DB_ID(N'TutorialDB') IS NULL
    CREATE DATABASE TutorialDB;
GO
ALTER DATABASE TutorialDB SET ENABLE_BROKER;
GO
USE TutorialDB;
GO

CREATE MESSAGE TYPE [//Tutorial/1DB/Request] VALIDATION = WELL_FORMED_XML;
CREATE MESSAGE TYPE [//Tutorial/1DB/Reply]   VALIDATION = WELL_FORMED_XML;
GO

CREATE CONTRACT [//Tutorial/1DB/RequestReply]
    ([//Tutorial/1DB/Request] SENT BY INITIATOR,
     [//Tutorial/1DB/Reply]   SENT BY TARGET);
GO

-- Target side.
CREATE QUEUE dbo.TargetQueue1DB;
CREATE SERVICE [//Tutorial/1DB/TargetService]
    ON QUEUE dbo.TargetQueue1DB ([//Tutorial/1DB/RequestReply]);
GO

-- Initiator side.
CREATE QUEUE dbo.InitiatorQueue1DB;
CREATE SERVICE [//Tutorial/1DB/InitiatorService] ON QUEUE dbo.InitiatorQueue1DB;
GO

-- The target's activation procedure: one message per transaction; a request gets a reply
-- and the conversation ends; EndDialog and Error end our side too.
CREATE PROCEDURE dbo.TargetActivProc
AS
BEGIN
    SET NOCOUNT ON;
    DECLARE @RecvHandle UNIQUEIDENTIFIER;
    DECLARE @RecvMsg    NVARCHAR(100);
    DECLARE @RecvType   SYSNAME;

    WHILE (1 = 1)
    BEGIN
        BEGIN TRANSACTION;

        WAITFOR
        ( RECEIVE TOP(1)
              @RecvHandle = conversation_handle,
              @RecvMsg    = message_body,
              @RecvType   = message_type_name
          FROM dbo.TargetQueue1DB
        ), TIMEOUT 5000;

        IF (@@ROWCOUNT = 0)
        BEGIN
            ROLLBACK TRANSACTION;
            BREAK;
        END

        IF @RecvType = N'//Tutorial/1DB/Request'
        BEGIN
            DECLARE @Reply NVARCHAR(100) = N'<Reply>Done</Reply>';
            SEND ON CONVERSATION @RecvHandle MESSAGE TYPE [//Tutorial/1DB/Reply] (@Reply);
            END CONVERSATION @RecvHandle;
        END
        ELSE IF @RecvType = N'http://schemas.microsoft.com/SQL/ServiceBroker/EndDialog'
        BEGIN
            END CONVERSATION @RecvHandle;
        END
        ELSE IF @RecvType = N'http://schemas.microsoft.com/SQL/ServiceBroker/Error'
        BEGIN
            END CONVERSATION @RecvHandle;
        END

        COMMIT TRANSACTION;
    END
END
GO

ALTER QUEUE dbo.TargetQueue1DB
    WITH ACTIVATION
    ( STATUS = ON,
      PROCEDURE_NAME = dbo.TargetActivProc,
      MAX_QUEUE_READERS = 10,
      EXECUTE AS SELF );
GO

-- The initiator's activation procedure: it reads the reply and, on the EndDialog the
-- target's END CONVERSATION sends, ends its own side (no leaked endpoints).
CREATE PROCEDURE dbo.InitiatorActivProc
AS
BEGIN
    SET NOCOUNT ON;
    DECLARE @RecvHandle UNIQUEIDENTIFIER;
    DECLARE @RecvType   SYSNAME;

    WHILE (1 = 1)
    BEGIN
        BEGIN TRANSACTION;

        WAITFOR
        ( RECEIVE TOP(1)
              @RecvHandle = conversation_handle,
              @RecvType   = message_type_name
          FROM dbo.InitiatorQueue1DB
        ), TIMEOUT 5000;

        IF (@@ROWCOUNT = 0)
        BEGIN
            ROLLBACK TRANSACTION;
            BREAK;
        END

        IF @RecvType = N'http://schemas.microsoft.com/SQL/ServiceBroker/EndDialog'
            END CONVERSATION @RecvHandle;
        ELSE IF @RecvType = N'http://schemas.microsoft.com/SQL/ServiceBroker/Error'
            END CONVERSATION @RecvHandle;

        COMMIT TRANSACTION;
    END
END
GO

ALTER QUEUE dbo.InitiatorQueue1DB
    WITH ACTIVATION
    ( STATUS = ON,
      PROCEDURE_NAME = dbo.InitiatorActivProc,
      MAX_QUEUE_READERS = 1,
      EXECUTE AS SELF );
GO

-- The application's call that starts one exchange (lesson 2 of the tutorial). Not part of
-- the catalog: the importer lists it, and the workload skeleton is where it belongs.
DECLARE @InitDlgHandle UNIQUEIDENTIFIER;
DECLARE @RequestMsg    NVARCHAR(100) = N'<Request>Hello</Request>';

BEGIN TRANSACTION;
BEGIN DIALOG @InitDlgHandle
    FROM SERVICE [//Tutorial/1DB/InitiatorService]
    TO SERVICE N'//Tutorial/1DB/TargetService'
    ON CONTRACT [//Tutorial/1DB/RequestReply]
    WITH ENCRYPTION = OFF;
SEND ON CONVERSATION @InitDlgHandle MESSAGE TYPE [//Tutorial/1DB/Request] (@RequestMsg);
COMMIT TRANSACTION;
GO
