-- want: 3:1 comment is never closed
CREATE QUEUE dbo.OrdersQueue;
/* the activation is set further down
   ... but this block comment never ends
CREATE SERVICE [//Orders/Service] ON QUEUE dbo.OrdersQueue;
