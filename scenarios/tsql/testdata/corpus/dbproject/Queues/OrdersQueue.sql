-- dbproject/Queues/OrdersQueue.sql
-- Shape: an SSDT database project (Contoso.Orders.sqlproj), one file per object, built into
-- a dacpac and published; the build orders the files by dependency, not by name, and no file
-- has a USE (the publish profile chooses the database, here OrdersDb; its SQLCMD variables
-- DatabaseName and MasterKeyPassword come from the profile: import with -var).
-- Follows: CREATE QUEUE (Microsoft Learn, Transact-SQL reference).
CREATE QUEUE [dbo].[OrdersQueue]
    WITH STATUS = ON,
         RETENTION = OFF,
         ACTIVATION
         (
             STATUS = ON,
             PROCEDURE_NAME = [dbo].[ProcessOrders],
             MAX_QUEUE_READERS = 2,
             EXECUTE AS OWNER
         ),
         POISON_MESSAGE_HANDLING (STATUS = ON);
