-- want: 4:10 RETENSION
-- A misspelt queue option.
CREATE QUEUE dbo.OrdersQueue
    WITH RETENSION = ON;
GO
