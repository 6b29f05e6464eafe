-- external-activation/external-activation.sql
--
-- Shape: external activation, as the External Activator service (or a custom one) expects
-- it: the work queue has no internal activation; an EVENT NOTIFICATION FOR QUEUE_ACTIVATION
-- on it posts to a notification service on the built-in contract
-- http://schemas.microsoft.com/SQL/Notifications/PostEventNotification; the activator reads
-- the notification queue and starts worker processes that RECEIVE from the work queue.
--
-- Follows: CREATE EVENT NOTIFICATION (FOR QUEUE_ACTIVATION ... TO SERVICE), "Event
-- notifications", CREATE QUEUE, CREATE SERVICE, "Service Broker activation" (external
-- activation).

USE master;
GO
IF DB_ID(N'ImagingDB') IS NULL CREATE DATABASE ImagingDB;
GO
ALTER DATABASE ImagingDB SET ENABLE_BROKER;
GO
USE ImagingDB;
GO

CREATE MESSAGE TYPE [//Imaging/Resize] VALIDATION = NONE;
GO
CREATE CONTRACT [//Imaging/ResizeContract] ([//Imaging/Resize] SENT BY INITIATOR);
GO
CREATE QUEUE dbo.ResizeRequests;
CREATE QUEUE dbo.ResizeClients;
GO
CREATE SERVICE [//Imaging/ResizeService] ON QUEUE dbo.ResizeRequests ([//Imaging/ResizeContract]);
CREATE SERVICE [//Imaging/ResizeClient] ON QUEUE dbo.ResizeClients;
GO

-- The activator's queue and service. The notification service must accept the
-- PostEventNotification contract; it is built in and needs no CREATE CONTRACT.
CREATE QUEUE dbo.ExternalActivatorQueue;
GO
CREATE SERVICE [ExternalActivatorService]
    ON QUEUE dbo.ExternalActivatorQueue
    ([http://schemas.microsoft.com/SQL/Notifications/PostEventNotification]);
GO

-- The service is named by string; 'current database' is how a notification addresses a
-- service in the same database.
CREATE EVENT NOTIFICATION ResizeRequestsActivation
    ON QUEUE dbo.ResizeRequests
    FOR QUEUE_ACTIVATION
    TO SERVICE N'ExternalActivatorService', N'current database';
GO

-- What the activator's worker runs (a batch from the client program, not a procedure): the
-- importer lists it; the matching reader comes from the external activator's configuration.
WAITFOR (RECEIVE TOP (10) conversation_handle, message_type_name, message_body
         FROM dbo.ResizeRequests), TIMEOUT 1000;
GO
