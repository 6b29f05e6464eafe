-- dbproject/Services/OrdersService.sql
-- Shape: an SSDT database project (Contoso.Orders.sqlproj), one file per object, built into
-- a dacpac and published; the build orders the files by dependency, not by name, and no file
-- has a USE (the publish profile chooses the database, here OrdersDb; its SQLCMD variables
-- DatabaseName and MasterKeyPassword come from the profile: import with -var).
-- Follows: CREATE SERVICE (Microsoft Learn, Transact-SQL reference).
CREATE SERVICE [//Contoso/Orders/OrdersService]
    AUTHORIZATION [dbo]
    ON QUEUE [dbo].[OrdersQueue]
    ([//Contoso/Orders/OrderContract]);
