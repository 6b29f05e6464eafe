-- dbproject/Queues/OrderClientQueue.sql
-- Shape: an SSDT database project (Contoso.Orders.sqlproj), one file per object, built into
-- a dacpac and published; the build orders the files by dependency, not by name, and no file
-- has a USE (the publish profile chooses the database, here OrdersDb; its SQLCMD variables
-- DatabaseName and MasterKeyPassword come from the profile: import with -var).
-- Follows: CREATE QUEUE (Microsoft Learn, Transact-SQL reference).
-- The initiator's queue: confirmations and EndDialog messages come back here. The web tier
-- polls it (no activation).
CREATE QUEUE [dbo].[OrderClientQueue] WITH STATUS = ON;
