-- want: 3:10 Server
-- The server of a :CONNECT comes from a variable nobody set.
:CONNECT $(Server)
CREATE QUEUE dbo.OrdersQueue;
GO
