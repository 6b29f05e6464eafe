-- want: 5:20 string is never closed
-- An N'' string that never ends: the error is where it began.
CREATE ROUTE [ToWarehouse]
    WITH SERVICE_NAME = N'//Contoso/Warehouse/Stock',
         ADDRESS = N'TCP://warehouse.example.com:4022;
GO
