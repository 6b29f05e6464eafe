-- dbproject/Security/OrdersCertificate.sql
-- Shape: an SSDT database project (Contoso.Orders.sqlproj), one file per object, built into
-- a dacpac and published; the build orders the files by dependency, not by name, and no file
-- has a USE (the publish profile chooses the database, here OrdersDb; its SQLCMD variables
-- DatabaseName and MasterKeyPassword come from the profile: import with -var).
-- Follows: CREATE MASTER KEY, CREATE CERTIFICATE (Microsoft Learn, Transact-SQL reference).
-- Dialog security is not used inside one database, but the project ships the certificate
-- the remote warehouse will trust once the service is exposed.
CREATE MASTER KEY ENCRYPTION BY PASSWORD = N'$(MasterKeyPassword)';
GO
CREATE CERTIFICATE [OrdersServiceCert]
    AUTHORIZATION [dbo]
    WITH SUBJECT = N'Contoso Orders service',
         EXPIRY_DATE = N'20301231';
