-- want: 6:10 MAX_READERS
-- MAX_QUEUE_READERS misspelt inside ACTIVATION (...).
CREATE QUEUE dbo.OrdersQueue
    WITH ACTIVATION (STATUS = ON,
         PROCEDURE_NAME = dbo.ProcessOrders,
         MAX_READERS = 5,
         EXECUTE AS OWNER);
GO
