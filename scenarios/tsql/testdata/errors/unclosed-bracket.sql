-- want: 2:14 identifier is never closed
CREATE QUEUE [dbo.OrdersQueue WITH STATUS = ON;
GO
