-- mirror-branch-gateway/branch-gateway.sql
--
-- MIRRORS scenarios/file/library/branch-gateway.yaml: importing this script must give
-- exactly that file's catalog (a round-trip test).
--   :CONNECT Branch1 -> the instance Branch1, database Shop1
--   :CONNECT Branch2 -> the instance Branch2, database Shop2
--   :CONNECT Gateway -> the instance Gateway: its database master (the USE master before
--                       its endpoint), MESSAGE_FORWARDING = ENABLED, and the msdb routes
--   :CONNECT HQ      -> the instance HQ, database Orders, without its AutoCreatedLocal route
-- Each ADDRESS is TCP://INSTANCE:4022, its host the name a :CONNECT gives, so that a route's
-- address imports as that instance. MESSAGE_FORWARD_SIZE is left out: the library sets no
-- forwarding max_size. Only the gateway USEs master; the other instances start in it as the
-- connection's default database and do not list it. Names are unqualified, as the library's.
--
-- Shape: a hub-and-spoke deployment in one SQLCMD-mode script: branch databases route the
-- head office's service to a forwarding gateway, whose msdb routes pass messages on both ways.
-- Follows: sqlcmd's :CONNECT, CREATE ENDPOINT (MESSAGE_FORWARDING), "Service Broker message
-- forwarding", CREATE ROUTE (in msdb; a route with no SERVICE_NAME matches every service),
-- DROP ROUTE (AutoCreatedLocal), CREATE BROKER PRIORITY, ALTER DATABASE SET
-- HONOR_BROKER_PRIORITY.

/* ================================ Branch 1 ================================ */
:CONNECT Branch1

CREATE ENDPOINT BranchEndpoint STATE = STARTED
    AS TCP (LISTENER_PORT = 4022)
    FOR SERVICE_BROKER (AUTHENTICATION = WINDOWS, ENCRYPTION = SUPPORTED);
GO
CREATE DATABASE Shop1;
GO
ALTER DATABASE Shop1 SET ENABLE_BROKER;
ALTER DATABASE Shop1 SET HONOR_BROKER_PRIORITY ON;
GO
USE Shop1;
GO
CREATE MESSAGE TYPE [Order] VALIDATION = NONE;
CREATE CONTRACT [//sbsim/Order] ([Order] SENT BY INITIATOR);
CREATE QUEUE ShopQueue;
CREATE SERVICE Urgent1 ON QUEUE ShopQueue;
CREATE SERVICE Bulk1 ON QUEUE ShopQueue;
GO
CREATE BROKER PRIORITY urgent FOR CONVERSATION
    SET (LOCAL_SERVICE_NAME = Urgent1, PRIORITY_LEVEL = 10);
CREATE BROKER PRIORITY bulk FOR CONVERSATION
    SET (LOCAL_SERVICE_NAME = Bulk1, PRIORITY_LEVEL = 1);
GO
CREATE ROUTE OrdersByGateway
    WITH SERVICE_NAME = N'Orders', ADDRESS = N'TCP://Gateway:4022';
GO

/* ================================ Branch 2 ================================ */
:CONNECT Branch2

CREATE ENDPOINT BranchEndpoint STATE = STARTED
    AS TCP (LISTENER_PORT = 4022)
    FOR SERVICE_BROKER (AUTHENTICATION = WINDOWS, ENCRYPTION = SUPPORTED);
GO
CREATE DATABASE Shop2;
GO
ALTER DATABASE Shop2 SET ENABLE_BROKER;
ALTER DATABASE Shop2 SET HONOR_BROKER_PRIORITY ON;
GO
USE Shop2;
GO
CREATE MESSAGE TYPE [Order] VALIDATION = NONE;
CREATE CONTRACT [//sbsim/Order] ([Order] SENT BY INITIATOR);
CREATE QUEUE ShopQueue;
CREATE SERVICE Urgent2 ON QUEUE ShopQueue;
CREATE SERVICE Bulk2 ON QUEUE ShopQueue;
GO
CREATE BROKER PRIORITY urgent FOR CONVERSATION
    SET (LOCAL_SERVICE_NAME = Urgent2, PRIORITY_LEVEL = 10);
CREATE BROKER PRIORITY bulk FOR CONVERSATION
    SET (LOCAL_SERVICE_NAME = Bulk2, PRIORITY_LEVEL = 1);
GO
CREATE ROUTE OrdersByGateway
    WITH SERVICE_NAME = N'Orders', ADDRESS = N'TCP://Gateway:4022';
GO

/* ================================= Gateway ================================= */
:CONNECT Gateway

USE master;
GO
CREATE ENDPOINT GatewayEndpoint STATE = STARTED
    AS TCP (LISTENER_PORT = 4022)
    FOR SERVICE_BROKER (AUTHENTICATION = WINDOWS, ENCRYPTION = SUPPORTED,
                        MESSAGE_FORWARDING = ENABLED);
GO
USE msdb;
GO
CREATE ROUTE Orders  WITH SERVICE_NAME = N'Orders',  ADDRESS = N'TCP://HQ:4022';
CREATE ROUTE Urgent1 WITH SERVICE_NAME = N'Urgent1', ADDRESS = N'TCP://Branch1:4022';
CREATE ROUTE Bulk1   WITH SERVICE_NAME = N'Bulk1',   ADDRESS = N'TCP://Branch1:4022';
CREATE ROUTE Urgent2 WITH SERVICE_NAME = N'Urgent2', ADDRESS = N'TCP://Branch2:4022';
CREATE ROUTE Bulk2   WITH SERVICE_NAME = N'Bulk2',   ADDRESS = N'TCP://Branch2:4022';
GO

/* ================================== HQ ================================== */
:CONNECT HQ

CREATE ENDPOINT HqEndpoint STATE = STARTED
    AS TCP (LISTENER_PORT = 4022)
    FOR SERVICE_BROKER (AUTHENTICATION = WINDOWS, ENCRYPTION = SUPPORTED);
GO
CREATE DATABASE Orders;
GO
ALTER DATABASE Orders SET ENABLE_BROKER;
GO
USE Orders;
GO
CREATE MESSAGE TYPE [Order] VALIDATION = NONE;
CREATE CONTRACT [//sbsim/Order] ([Order] SENT BY INITIATOR);
CREATE QUEUE OrdersQueue;
CREATE SERVICE Orders ON QUEUE OrdersQueue ([//sbsim/Order]);
GO
-- Everything back goes through the gateway: the wildcard route below. AutoCreatedLocal,
-- a wildcard to LOCAL, would be preferred to it and strand the acknowledgements.
DROP ROUTE AutoCreatedLocal;
GO
CREATE ROUTE ByGateway WITH ADDRESS = N'TCP://Gateway:4022';
GO
