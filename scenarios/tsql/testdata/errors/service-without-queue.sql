-- want: 3:35 (
-- CREATE SERVICE needs ON QUEUE before its contracts.
CREATE SERVICE [//Orders/Service] ([//Orders/Contract]);
GO
