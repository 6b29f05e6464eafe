-- cross-instance/target.sql
--
-- Shape: the target half of a two-server deployment, run in SQLCMD mode against the target
-- server (the :CONNECT line; or import with -map InstTargetDB=target.example.com). Transport
-- security by certificates: each instance's endpoint authenticates with a certificate in
-- master, and the other instance's public certificate is trusted through a login. Dialog
-- security: the initiator's user certificate is trusted through a user without login. A route
-- back to the initiator's service, with its BROKER_INSTANCE.
-- Pairs with cross-instance/initiator.sql (the instance initiator.example.com).
--
-- Follows: the tutorial "Completing a Conversation Between Instances" (lessons 1 to 4:
-- create the target database, create the initiator database, begin a conversation, receive
-- and end), CREATE ENDPOINT (FOR SERVICE_BROKER), CREATE ROUTE, CREATE CERTIFICATE,
-- CREATE MASTER KEY, GRANT CONNECT ON ENDPOINT.

:setvar CertDir "D:\BrokerCerts"
:CONNECT target.example.com

/* ---------- instance level: master key, endpoint certificate, endpoint ---------- */
USE master;
GO
IF NOT EXISTS (SELECT * FROM sys.symmetric_keys WHERE name = N'##MS_DatabaseMasterKey##')
    CREATE MASTER KEY ENCRYPTION BY PASSWORD = N'<EnterStrongPassword1Here>';
GO
CREATE CERTIFICATE TargetTransportCert
    WITH SUBJECT = N'Target instance transport certificate',
         EXPIRY_DATE = N'20301231';
GO
BACKUP CERTIFICATE TargetTransportCert
    TO FILE = N'$(CertDir)\TargetTransportCert.cer';
GO

IF EXISTS (SELECT * FROM sys.endpoints WHERE name = N'InstTargetEndpoint')
    DROP ENDPOINT InstTargetEndpoint;
GO
CREATE ENDPOINT InstTargetEndpoint
    STATE = STARTED
    AS TCP ( LISTENER_PORT = 4022 )
    FOR SERVICE_BROKER
    ( AUTHENTICATION = CERTIFICATE TargetTransportCert,
      ENCRYPTION = REQUIRED ALGORITHM AES );
GO

-- Trust the initiator instance's transport certificate.
CREATE LOGIN InitiatorInstanceLogin WITH PASSWORD = N'<EnterStrongPassword2Here>';
GO
CREATE USER InitiatorInstanceLogin;
GO
CREATE CERTIFICATE InitiatorTransportCert
    AUTHORIZATION InitiatorInstanceLogin
    FROM FILE = N'$(CertDir)\InitiatorTransportCert.cer';
GO
GRANT CONNECT ON ENDPOINT::InstTargetEndpoint TO InitiatorInstanceLogin;
GO

/* ---------------------------- the target database ---------------------------- */
IF DB_ID(N'InstTargetDB') IS NULL CREATE DATABASE InstTargetDB;
GO
ALTER DATABASE InstTargetDB SET ENABLE_BROKER;
GO
USE InstTargetDB;
GO
CREATE MASTER KEY ENCRYPTION BY PASSWORD = N'<EnterStrongPassword3Here>';
GO
CREATE USER TargetUser WITHOUT LOGIN;
GO
CREATE CERTIFICATE TargetDialogCert
    AUTHORIZATION TargetUser
    WITH SUBJECT = N'Target dialog certificate', EXPIRY_DATE = N'20301231';
GO
BACKUP CERTIFICATE TargetDialogCert TO FILE = N'$(CertDir)\TargetDialogCert.cer';
GO

CREATE MESSAGE TYPE [//Shared/TwoInst/Request] VALIDATION = WELL_FORMED_XML;
CREATE MESSAGE TYPE [//Shared/TwoInst/Reply]   VALIDATION = WELL_FORMED_XML;
GO
CREATE CONTRACT [//Shared/TwoInst/Contract]
    ([//Shared/TwoInst/Request] SENT BY INITIATOR,
     [//Shared/TwoInst/Reply]   SENT BY TARGET);
GO
CREATE QUEUE InstTargetQueue;
CREATE SERVICE [//Target/TwoInst/Service]
    AUTHORIZATION TargetUser
    ON QUEUE InstTargetQueue ([//Shared/TwoInst/Contract]);
GO

-- The initiator's dialog certificate, owned by a user the target maps it to.
CREATE USER InitiatorUser WITHOUT LOGIN;
GO
CREATE CERTIFICATE InitiatorDialogCert
    AUTHORIZATION InitiatorUser
    FROM FILE = N'$(CertDir)\InitiatorDialogCert.cer';
GO
GRANT SEND ON SERVICE::[//Target/TwoInst/Service] TO InitiatorUser;
GO

-- Replies go back to the initiator's service on the other instance. The BROKER_INSTANCE is
-- the initiator database's service_broker_guid (SELECT service_broker_guid FROM sys.databases
-- WHERE name = 'InstInitiatorDB' on initiator.example.com).
CREATE ROUTE InstInitiatorRoute
    WITH SERVICE_NAME = N'//Initiator/TwoInst/Service',
         BROKER_INSTANCE = N'8D1F6A2C-4B7E-4C61-9E3A-2F5B7C9D0E11',
         ADDRESS = N'TCP://initiator.example.com:4022';
GO

-- Target activation: reply, then end.
CREATE PROCEDURE dbo.InstTargetActivation
AS
BEGIN
    SET NOCOUNT ON;
    DECLARE @h UNIQUEIDENTIFIER, @type SYSNAME, @msg NVARCHAR(200);
    WHILE (1 = 1)
    BEGIN
        BEGIN TRANSACTION;
        WAITFOR (RECEIVE TOP(1) @h = conversation_handle, @msg = message_body,
                                @type = message_type_name
                 FROM InstTargetQueue), TIMEOUT 5000;
        IF @@ROWCOUNT = 0
        BEGIN
            ROLLBACK TRANSACTION;
            BREAK;
        END
        IF @type = N'//Shared/TwoInst/Request'
        BEGIN
            SEND ON CONVERSATION @h MESSAGE TYPE [//Shared/TwoInst/Reply]
                (N'<Reply status="ok"/>');
            END CONVERSATION @h;
        END
        ELSE IF @type = N'http://schemas.microsoft.com/SQL/ServiceBroker/EndDialog'
            END CONVERSATION @h;
        ELSE IF @type = N'http://schemas.microsoft.com/SQL/ServiceBroker/Error'
            END CONVERSATION @h;
        COMMIT TRANSACTION;
    END
END
GO
ALTER QUEUE InstTargetQueue WITH ACTIVATION (STATUS = ON,
    PROCEDURE_NAME = dbo.InstTargetActivation, MAX_QUEUE_READERS = 5, EXECUTE AS OWNER);
GO
