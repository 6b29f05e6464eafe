-- reference-program/legacy-dispatch.sql
--
-- Shape: a design that grew over the years: a queue with no activation, drained by a SQL
-- Agent job that calls a dispatcher procedure every minute. The dispatcher is not a
-- RECEIVE loop: it reads the queue with a cursor over a SELECT, builds its RECEIVE as
-- dynamic SQL (the queue name comes from a configuration table), and hands each message to
-- another procedure chosen at run time with EXEC. Nothing here can be read as
-- WAITFOR (RECEIVE TOP (n) ...), TIMEOUT t; the importer must fall back to a reference
-- program for the queue and say which constructs it did not understand. A second queue is
-- activated by a procedure that is no loop either (see AuditActivated).
--
-- Follows: SELECT from a queue ("Queues" / the queue's columns), sp_executesql, DECLARE
-- CURSOR, EXECUTE, RECEIVE, END CONVERSATION; sp_add_job / sp_add_jobstep (msdb, SQL Agent).

USE master;
GO
IF DB_ID(N'LegacyDB') IS NULL CREATE DATABASE LegacyDB;
GO
ALTER DATABASE LegacyDB SET ENABLE_BROKER;
GO
USE LegacyDB;
GO

CREATE MESSAGE TYPE [//Legacy/Event] VALIDATION = NONE;
GO
CREATE CONTRACT [//Legacy/EventContract] ([//Legacy/Event] SENT BY INITIATOR);
GO
CREATE QUEUE dbo.EventQueue WITH STATUS = ON, RETENTION = OFF;
CREATE QUEUE dbo.EventSourceQueue;
GO
CREATE SERVICE [//Legacy/EventSink] ON QUEUE dbo.EventQueue ([//Legacy/EventContract]);
CREATE SERVICE [//Legacy/EventSource] ON QUEUE dbo.EventSourceQueue;
GO

CREATE TABLE dbo.DispatchConfig (
    QueueName   SYSNAME NOT NULL PRIMARY KEY,
    HandlerProc SYSNAME NOT NULL
);
INSERT dbo.DispatchConfig (QueueName, HandlerProc) VALUES (N'dbo.EventQueue', N'dbo.HandleEvent');
GO

CREATE PROCEDURE dbo.HandleEvent
    @handle UNIQUEIDENTIFIER,
    @body   VARBINARY(MAX)
AS
BEGIN
    SET NOCOUNT ON;
    -- Business logic lives here in the real system.
    END CONVERSATION @handle;
END
GO

CREATE PROCEDURE dbo.DispatchEvents
AS
BEGIN
    SET NOCOUNT ON;
    DECLARE @queue SYSNAME, @handler SYSNAME, @sql NVARCHAR(MAX);
    DECLARE @handle UNIQUEIDENTIFIER, @body VARBINARY(MAX);

    SELECT @queue = QueueName, @handler = HandlerProc
    FROM dbo.DispatchConfig
    WHERE QueueName = N'dbo.EventQueue';

    -- Peek at what is waiting (SELECT from a queue does not remove anything).
    DECLARE pending CURSOR LOCAL STATIC FOR
        SELECT conversation_handle FROM dbo.EventQueue WITH (NOLOCK)
        WHERE message_type_name = N'//Legacy/Event'
        ORDER BY queuing_order;

    OPEN pending;
    FETCH NEXT FROM pending INTO @handle;
    WHILE @@FETCH_STATUS = 0
    BEGIN
        BEGIN TRY
            BEGIN TRANSACTION;
            SET @sql = N'RECEIVE TOP (1) @b = message_body FROM ' + @queue
                     + N' WHERE conversation_handle = @h;';
            EXEC sp_executesql @sql,
                 N'@h UNIQUEIDENTIFIER, @b VARBINARY(MAX) OUTPUT',
                 @h = @handle, @b = @body OUTPUT;

            EXEC @handler @handle = @handle, @body = @body;
            COMMIT TRANSACTION;
        END TRY
        BEGIN CATCH
            IF XACT_STATE() <> 0 ROLLBACK TRANSACTION;
            EXEC dbo.LogDispatchError @handle = @handle;
        END CATCH
        FETCH NEXT FROM pending INTO @handle;
    END
    CLOSE pending;
    DEALLOCATE pending;
END
GO

CREATE PROCEDURE dbo.LogDispatchError @handle UNIQUEIDENTIFIER
AS
    PRINT CONCAT(N'dispatch failed for ', CONVERT(NVARCHAR(36), @handle));
GO

-- A second queue, this one activated, whose procedure is not a loop either: it RECEIVEs
-- once without WAITFOR, through a procedure it calls, and never COMMITs itself (the caller's
-- transaction is the activation task's own). The importer must keep the activation and give
-- the procedure a reference program, saying why.
CREATE QUEUE dbo.AuditQueue;
GO
CREATE SERVICE [//Legacy/AuditSink] ON QUEUE dbo.AuditQueue ([//Legacy/EventContract]);
GO
CREATE PROCEDURE dbo.ReceiveOneAudit @queue SYSNAME
AS
BEGIN
    DECLARE @sql NVARCHAR(400) = N'RECEIVE TOP (1) * FROM ' + QUOTENAME(PARSENAME(@queue, 2))
                               + N'.' + QUOTENAME(PARSENAME(@queue, 1)) + N';';
    EXEC (@sql);
END
GO
CREATE PROCEDURE dbo.AuditActivated
AS
BEGIN
    SET NOCOUNT ON;
    DECLARE @rows TABLE (status TINYINT, priority TINYINT, queuing_order BIGINT,
        conversation_group_id UNIQUEIDENTIFIER, conversation_handle UNIQUEIDENTIFIER,
        message_sequence_number BIGINT, service_name NVARCHAR(512), service_id INT,
        service_contract_name NVARCHAR(256), service_contract_id INT,
        message_type_name NVARCHAR(256), message_type_id INT, validation NCHAR(2),
        message_body VARBINARY(MAX), message_enqueue_time DATETIME);
    INSERT INTO @rows EXEC dbo.ReceiveOneAudit @queue = N'dbo.AuditQueue';
    DECLARE @h UNIQUEIDENTIFIER, @b VARBINARY(MAX);
    SELECT TOP (1) @h = conversation_handle, @b = message_body FROM @rows;
    IF @h IS NOT NULL
        EXEC dbo.HandleEvent @handle = @h, @body = @b;
END
GO
ALTER QUEUE dbo.AuditQueue WITH ACTIVATION (STATUS = ON, PROCEDURE_NAME = dbo.AuditActivated,
    MAX_QUEUE_READERS = 2, EXECUTE AS OWNER);
GO

-- The SQL Agent job that runs the dispatcher every minute (in msdb, not modelled).
USE msdb;
GO
EXEC dbo.sp_add_job @job_name = N'LegacyDB - dispatch events';
EXEC dbo.sp_add_jobstep @job_name = N'LegacyDB - dispatch events', @step_name = N'dispatch',
     @subsystem = N'TSQL', @database_name = N'LegacyDB', @command = N'EXEC dbo.DispatchEvents;';
EXEC dbo.sp_add_schedule @schedule_name = N'every minute', @freq_type = 4, @freq_interval = 1,
     @freq_subday_type = 4, @freq_subday_interval = 1;
EXEC dbo.sp_attach_schedule @job_name = N'LegacyDB - dispatch events', @schedule_name = N'every minute';
EXEC dbo.sp_add_jobserver @job_name = N'LegacyDB - dispatch events';
GO
