-- want: 5:30 many
-- MAX_QUEUE_READERS wants a number.
CREATE QUEUE dbo.OrdersQueue
    WITH ACTIVATION (PROCEDURE_NAME = dbo.ProcessOrders,
         MAX_QUEUE_READERS = many, EXECUTE AS OWNER);
GO
