-- dbproject/Security/OrdersAppUser.sql
-- Shape: an SSDT database project (Contoso.Orders.sqlproj), one file per object, built into
-- a dacpac and published; the build orders the files by dependency, not by name, and no file
-- has a USE (the publish profile chooses the database, here OrdersDb; its SQLCMD variables
-- DatabaseName and MasterKeyPassword come from the profile: import with -var).
-- Follows: CREATE USER, GRANT (Service Broker permissions: SEND ON SERVICE, RECEIVE ON queue) (Microsoft Learn, Transact-SQL reference).
CREATE USER [OrdersApp] WITHOUT LOGIN
    WITH DEFAULT_SCHEMA = [dbo];
GO
GRANT SEND ON SERVICE::[//Contoso/Orders/OrdersService] TO [OrdersApp];
GO
GRANT RECEIVE ON [dbo].[OrderClientQueue] TO [OrdersApp];
