-- cross-instance/initiator.sql
--
-- Shape: the initiator half of a two-server deployment (see cross-instance/target.sql),
-- run in SQLCMD mode against initiator.example.com. The instance's endpoint authenticates
-- with its own certificate and trusts the target's; the database has a REMOTE SERVICE
-- BINDING so that dialogs to the target service are secured with the target user's
-- certificate, and a route to the target service with the target database's BROKER_INSTANCE.
--
-- Follows: the tutorial "Completing a Conversation Between Instances", CREATE ENDPOINT
-- (FOR SERVICE_BROKER), CREATE ROUTE, CREATE REMOTE SERVICE BINDING, CREATE CERTIFICATE.

:setvar CertDir "D:\BrokerCerts"
:CONNECT initiator.example.com

USE master;
GO
IF NOT EXISTS (SELECT * FROM sys.symmetric_keys WHERE name = N'##MS_DatabaseMasterKey##')
    CREATE MASTER KEY ENCRYPTION BY PASSWORD = N'<EnterStrongPassword1Here>';
GO
CREATE CERTIFICATE InitiatorTransportCert
    WITH SUBJECT = N'Initiator instance transport certificate',
         EXPIRY_DATE = N'20301231';
GO
BACKUP CERTIFICATE InitiatorTransportCert TO FILE = N'$(CertDir)\InitiatorTransportCert.cer';
GO
CREATE ENDPOINT InstInitiatorEndpoint
    STATE = STARTED
    AS TCP (LISTENER_PORT = 4022, LISTENER_IP = ALL)
    FOR SERVICE_BROKER (
        AUTHENTICATION = CERTIFICATE InitiatorTransportCert,
        ENCRYPTION = REQUIRED ALGORITHM AES
    );
GO
CREATE LOGIN TargetInstanceLogin WITH PASSWORD = N'<EnterStrongPassword2Here>';
CREATE USER TargetInstanceLogin;
GO
CREATE CERTIFICATE TargetTransportCert
    AUTHORIZATION TargetInstanceLogin
    FROM FILE = N'$(CertDir)\TargetTransportCert.cer';
GO
GRANT CONNECT ON ENDPOINT::InstInitiatorEndpoint TO TargetInstanceLogin;
GO

IF DB_ID(N'InstInitiatorDB') IS NULL CREATE DATABASE InstInitiatorDB;
GO
ALTER DATABASE InstInitiatorDB SET ENABLE_BROKER;
GO
USE InstInitiatorDB;
GO
CREATE MASTER KEY ENCRYPTION BY PASSWORD = N'<EnterStrongPassword3Here>';
GO

CREATE MESSAGE TYPE [//Shared/TwoInst/Request] VALIDATION = WELL_FORMED_XML;
CREATE MESSAGE TYPE [//Shared/TwoInst/Reply]   VALIDATION = WELL_FORMED_XML;
GO
CREATE CONTRACT [//Shared/TwoInst/Contract]
    ([//Shared/TwoInst/Request] SENT BY INITIATOR,
     [//Shared/TwoInst/Reply]   SENT BY TARGET);
GO
CREATE QUEUE InstInitiatorQueue;
CREATE SERVICE [//Initiator/TwoInst/Service] ON QUEUE InstInitiatorQueue;
GO

-- Dialog security: our own certificate, and the target's, bound to the target service.
CREATE USER InitiatorUser WITHOUT LOGIN;
GO
CREATE CERTIFICATE InitiatorDialogCert
    AUTHORIZATION InitiatorUser
    WITH SUBJECT = N'Initiator dialog certificate', EXPIRY_DATE = N'20301231';
GO
BACKUP CERTIFICATE InitiatorDialogCert TO FILE = N'$(CertDir)\InitiatorDialogCert.cer';
GO
CREATE USER TargetUser WITHOUT LOGIN;
GO
CREATE CERTIFICATE TargetDialogCert
    AUTHORIZATION TargetUser
    FROM FILE = N'$(CertDir)\TargetDialogCert.cer';
GO
CREATE REMOTE SERVICE BINDING TargetBinding
    TO SERVICE N'//Target/TwoInst/Service'
    WITH USER = TargetUser, ANONYMOUS = OFF;
GO

-- The route to the target. BROKER_INSTANCE is InstTargetDB's service_broker_guid on
-- target.example.com.
CREATE ROUTE InstTargetRoute
    WITH SERVICE_NAME = N'//Target/TwoInst/Service',
         BROKER_INSTANCE = N'3C0B9E47-71D2-4F8A-B6A5-0D4E2C8F9A73',
         ADDRESS = N'TCP://target.example.com:4022';
GO

-- The initiator's application reads the replies itself (no activation): it ends its side
-- on the EndDialog the target sends after the reply.
DECLARE @InitDlgHandle UNIQUEIDENTIFIER;
BEGIN TRANSACTION;
BEGIN DIALOG @InitDlgHandle
    FROM SERVICE [//Initiator/TwoInst/Service]
    TO SERVICE N'//Target/TwoInst/Service'
    ON CONTRACT [//Shared/TwoInst/Contract]
    WITH ENCRYPTION = ON;
SEND ON CONVERSATION @InitDlgHandle
    MESSAGE TYPE [//Shared/TwoInst/Request] (N'<Request id="1"/>');
COMMIT TRANSACTION;
GO
