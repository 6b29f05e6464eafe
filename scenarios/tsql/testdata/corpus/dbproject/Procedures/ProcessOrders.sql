-- dbproject/Procedures/ProcessOrders.sql
-- Shape: an SSDT database project (Contoso.Orders.sqlproj), one file per object, built into
-- a dacpac and published; the build orders the files by dependency, not by name, and no file
-- has a USE (the publish profile chooses the database, here OrdersDb; its SQLCMD variables
-- DatabaseName and MasterKeyPassword come from the profile: import with -var).
-- Follows: WAITFOR, RECEIVE, SEND, END CONVERSATION, and "Service Broker activation" (the activation procedure pattern) (Microsoft Learn, Transact-SQL reference).
CREATE PROCEDURE [dbo].[ProcessOrders]
AS
BEGIN
    SET NOCOUNT ON;

    DECLARE @ConversationHandle UNIQUEIDENTIFIER;
    DECLARE @MessageTypeName    SYSNAME;
    DECLARE @MessageBody        VARBINARY (MAX);
    DECLARE @ReplyBody          XML;

    WHILE (1 = 1)
    BEGIN
        BEGIN TRANSACTION;

        BEGIN TRY
            WAITFOR
            (
                RECEIVE TOP (1)
                    @ConversationHandle = [conversation_handle],
                    @MessageTypeName    = [message_type_name],
                    @MessageBody        = [message_body]
                FROM [dbo].[OrdersQueue]
            ), TIMEOUT 5000;

            IF (@@ROWCOUNT = 0)
            BEGIN
                ROLLBACK TRANSACTION;
                BREAK;
            END

            IF (@MessageTypeName = N'//Contoso/Orders/SubmitOrder')
            BEGIN
                INSERT INTO [dbo].[OrderLog] ([ConversationId], [MessageType], [Body])
                VALUES (@ConversationHandle, @MessageTypeName, CAST (@MessageBody AS XML));

                SET @ReplyBody = N'<OrderConfirmation status="accepted"/>';

                SEND ON CONVERSATION (@ConversationHandle)
                    MESSAGE TYPE [//Contoso/Orders/OrderConfirmation] (@ReplyBody);

                END CONVERSATION @ConversationHandle;
            END
            ELSE IF (@MessageTypeName = N'http://schemas.microsoft.com/SQL/ServiceBroker/EndDialog')
            BEGIN
                END CONVERSATION @ConversationHandle;
            END
            ELSE IF (@MessageTypeName = N'http://schemas.microsoft.com/SQL/ServiceBroker/Error')
            BEGIN
                -- Log the error body and close our side.
                INSERT INTO [dbo].[OrderLog] ([ConversationId], [MessageType], [Body])
                VALUES (@ConversationHandle, @MessageTypeName, CAST (@MessageBody AS XML));
                END CONVERSATION @ConversationHandle;
            END

            COMMIT TRANSACTION;
        END TRY
        BEGIN CATCH
            IF (XACT_STATE() <> 0)
                ROLLBACK TRANSACTION;
            THROW;
        END CATCH
    END
END
