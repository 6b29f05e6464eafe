-- dbproject/Database/EnableBroker.sql
-- Shape: an SSDT database project (Contoso.Orders.sqlproj), one file per object, built into
-- a dacpac and published; the build orders the files by dependency, not by name, and no file
-- has a USE (the publish profile chooses the database, here OrdersDb; its SQLCMD variables
-- DatabaseName and MasterKeyPassword come from the profile: import with -var).
-- Follows: ALTER DATABASE SET options (ENABLE_BROKER), run as the project's post-deployment script (Microsoft Learn, Transact-SQL reference).
-- Post-deployment script (Script.PostDeployment.sql in the project). $(DatabaseName) is the
-- variable SSDT defines for the target database.
IF EXISTS (SELECT 1 FROM sys.databases WHERE [name] = N'$(DatabaseName)' AND is_broker_enabled = 0)
BEGIN
    ALTER DATABASE [$(DatabaseName)] SET ENABLE_BROKER WITH ROLLBACK IMMEDIATE;
END
