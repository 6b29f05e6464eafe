-- dbproject/Tables/OrderLog.sql
-- Shape: an SSDT database project (Contoso.Orders.sqlproj), one file per object, built into
-- a dacpac and published; the build orders the files by dependency, not by name, and no file
-- has a USE (the publish profile chooses the database, here OrdersDb; its SQLCMD variables
-- DatabaseName and MasterKeyPassword come from the profile: import with -var).
-- Follows: CREATE TABLE (Microsoft Learn, Transact-SQL reference).
CREATE TABLE [dbo].[OrderLog]
(
    [OrderLogId]     BIGINT           IDENTITY (1, 1) NOT NULL,
    [ConversationId] UNIQUEIDENTIFIER NOT NULL,
    [MessageType]    SYSNAME          NOT NULL,
    [Body]           XML              NULL,
    [LoggedAt]       DATETIME2 (3)    CONSTRAINT [DF_OrderLog_LoggedAt] DEFAULT (SYSUTCDATETIME()) NOT NULL,
    CONSTRAINT [PK_OrderLog] PRIMARY KEY CLUSTERED ([OrderLogId] ASC)
);
