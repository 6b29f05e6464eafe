-- priorities/priorities.sql
--
-- Shape: a priorities rollout on an existing single-database application (the objects are
-- created first so the script stands alone): HONOR_BROKER_PRIORITY on, then one broker
-- priority per way the CREATE BROKER PRIORITY reference page's examples match
-- conversations: by all three criteria, by contract alone, by local service with ANY for the
-- rest, by remote service name (a string, as the far side spells it), a catch-all with
-- PRIORITY_LEVEL = DEFAULT, and one with no SET at all. Later releases ALTER one and DROP one.
--
-- Follows: CREATE BROKER PRIORITY (its examples), ALTER BROKER PRIORITY, DROP BROKER PRIORITY,
-- ALTER DATABASE SET options (HONOR_BROKER_PRIORITY), "Conversation priorities".

USE master;
GO
IF DB_ID(N'PriorityDB') IS NULL CREATE DATABASE PriorityDB;
GO
ALTER DATABASE PriorityDB SET ENABLE_BROKER;
GO
-- Without this, priorities order only the RECEIVE side; with it, the transmission queue too.
ALTER DATABASE PriorityDB SET HONOR_BROKER_PRIORITY ON;
GO
USE PriorityDB;
GO

CREATE MESSAGE TYPE [//Billing/Invoice] VALIDATION = WELL_FORMED_XML;
CREATE MESSAGE TYPE [//Billing/Reminder] VALIDATION = WELL_FORMED_XML;
CREATE MESSAGE TYPE [//Billing/Audit] VALIDATION = NONE;
GO
CREATE CONTRACT [//Billing/InvoiceContract] ([//Billing/Invoice] SENT BY INITIATOR);
CREATE CONTRACT [//Billing/ReminderContract] ([//Billing/Reminder] SENT BY INITIATOR);
CREATE CONTRACT [//Billing/AuditContract] ([//Billing/Audit] SENT BY ANY);
GO
CREATE QUEUE dbo.BillingQueue;
CREATE QUEUE dbo.AuditQueue;
GO
CREATE SERVICE [//Billing/InvoiceSender] ON QUEUE dbo.BillingQueue;
CREATE SERVICE [//Billing/InvoiceTarget] ON QUEUE dbo.BillingQueue
    ([//Billing/InvoiceContract], [//Billing/ReminderContract]);
CREATE SERVICE [//Billing/AuditService] ON QUEUE dbo.AuditQueue ([//Billing/AuditContract]);
GO

-- 1. All three criteria: invoices from our sender to the invoice target.
CREATE BROKER PRIORITY InvoiceToTarget
    FOR CONVERSATION
    SET (CONTRACT_NAME = [//Billing/InvoiceContract],
         LOCAL_SERVICE_NAME = [//Billing/InvoiceSender],
         REMOTE_SERVICE_NAME = N'//Billing/InvoiceTarget',
         PRIORITY_LEVEL = 9);
GO
-- 2. The contract alone: every reminder conversation, whichever services.
CREATE BROKER PRIORITY Reminders
    FOR CONVERSATION
    SET (CONTRACT_NAME = [//Billing/ReminderContract],
         PRIORITY_LEVEL = 2);
GO
-- 3. A local service, the rest ANY.
CREATE BROKER PRIORITY AuditLocal
    FOR CONVERSATION
    SET (CONTRACT_NAME = ANY,
         LOCAL_SERVICE_NAME = [//Billing/AuditService],
         REMOTE_SERVICE_NAME = ANY,
         PRIORITY_LEVEL = 1);
GO
-- 4. A remote service only, the way a service in another database is named: a string.
CREATE BROKER PRIORITY [To remote ledger]
    FOR CONVERSATION
    SET (REMOTE_SERVICE_NAME = N'//Ledger/PostingService',
         PRIORITY_LEVEL = 7);
GO
-- 5. A catch-all that spells out the default level.
create broker priority CatchAll for conversation
    set (contract_name = any, local_service_name = any, remote_service_name = any,
         priority_level = default);
GO
-- 6. No SET at all: every criterion ANY, level 5.
CREATE BROKER PRIORITY Everything FOR CONVERSATION;
GO

-- A later release: reminders matter more than we thought, and the catch-all goes.
ALTER BROKER PRIORITY Reminders
    FOR CONVERSATION
    SET (PRIORITY_LEVEL = 4);
GO
ALTER BROKER PRIORITY [To remote ledger]
    FOR CONVERSATION
    SET (LOCAL_SERVICE_NAME = [//Billing/InvoiceSender]);
GO
DROP BROKER PRIORITY CatchAll;
GO
