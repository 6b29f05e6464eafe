-- poison/poison.sql
--
-- Shape: a queue whose owners turned poison message handling off because the activation
-- procedure sometimes rolls back on purpose (a deadlock retry pattern) and five rollbacks in
-- a row would otherwise disable the queue; plus an audit queue with RETENTION = ON that keeps
-- every message of a conversation until it ends.
--
-- Follows: CREATE QUEUE (POISON_MESSAGE_HANDLING, RETENTION), "Removing poison messages",
-- ALTER QUEUE, TRY...CATCH, XACT_STATE.

USE master;
GO
IF DB_ID(N'PaymentsDB') IS NULL CREATE DATABASE PaymentsDB;
GO
ALTER DATABASE PaymentsDB SET ENABLE_BROKER;
GO
USE PaymentsDB;
GO

CREATE MESSAGE TYPE [//Payments/Charge] VALIDATION = WELL_FORMED_XML;
CREATE MESSAGE TYPE [//Payments/Receipt] VALIDATION = WELL_FORMED_XML;
GO
CREATE CONTRACT [//Payments/ChargeContract]
    ([//Payments/Charge] SENT BY INITIATOR, [//Payments/Receipt] SENT BY TARGET);
GO

-- Retained: the payment application audits every conversation before it ends it.
CREATE QUEUE dbo.PaymentClientQueue WITH STATUS = ON, RETENTION = ON;
GO
CREATE QUEUE dbo.ChargeQueue
    WITH STATUS = ON,
         RETENTION = OFF,
         ACTIVATION (STATUS = ON, PROCEDURE_NAME = dbo.ProcessCharges,
                     MAX_QUEUE_READERS = 3, EXECUTE AS OWNER),
         POISON_MESSAGE_HANDLING (STATUS = OFF);
GO
CREATE SERVICE [//Payments/Client] ON QUEUE dbo.PaymentClientQueue;
CREATE SERVICE [//Payments/Charger] ON QUEUE dbo.ChargeQueue ([//Payments/ChargeContract]);
GO

CREATE TABLE dbo.Charges (
    ChargeId       INT IDENTITY PRIMARY KEY,
    ConversationId UNIQUEIDENTIFIER NOT NULL,
    Amount         DECIMAL(19, 4) NOT NULL
);
GO

-- The procedure rolls the RECEIVE back when the charge fails, so the message comes back and
-- is tried again: with poison handling ON, five such rollbacks in a row would disable the
-- queue.
CREATE PROCEDURE dbo.ProcessCharges
AS
BEGIN
    SET NOCOUNT ON;
    DECLARE @h UNIQUEIDENTIFIER, @type SYSNAME, @body XML;

    WHILE (1 = 1)
    BEGIN
        BEGIN TRANSACTION;
        BEGIN TRY
            WAITFOR (RECEIVE TOP (1)
                         @h = conversation_handle,
                         @type = message_type_name,
                         @body = CAST(message_body AS XML)
                     FROM dbo.ChargeQueue), TIMEOUT 5000;

            IF @@ROWCOUNT = 0
            BEGIN
                ROLLBACK TRANSACTION;
                BREAK;
            END

            IF @type = N'//Payments/Charge'
            BEGIN
                INSERT dbo.Charges (ConversationId, Amount)
                VALUES (@h, @body.value(N'(/charge/@amount)[1]', N'decimal(19,4)'));

                SEND ON CONVERSATION @h MESSAGE TYPE [//Payments/Receipt] (N'<receipt/>');
                END CONVERSATION @h;
            END
            ELSE IF @type = N'http://schemas.microsoft.com/SQL/ServiceBroker/EndDialog'
                END CONVERSATION @h;
            ELSE IF @type = N'http://schemas.microsoft.com/SQL/ServiceBroker/Error'
                END CONVERSATION @h;

            COMMIT TRANSACTION;
        END TRY
        BEGIN CATCH
            -- A deadlock or a failed charge: put the message back and try again later.
            IF XACT_STATE() <> 0
                ROLLBACK TRANSACTION;
        END CATCH
    END
END
GO
