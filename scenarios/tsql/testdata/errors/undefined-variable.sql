-- want: 4:6 DbName
-- The variable DbName is used but neither :setvar nor -var gives it.
:setvar Db "OrdersDb"
USE [$(DbName)];
GO
