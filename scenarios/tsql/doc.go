// Package tsql reads Service Broker T-SQL scripts into a design (issue 17): deployment
// scripts with GO batch separators and SQLCMD mode (:setvar, $(name) substitution,
// :CONNECT), comments, bracketed and quoted identifiers, N'...' strings and
// case-insensitive keywords; one file per object, as a database project has them.
//
// Split cuts a script into batches, Tokens a batch into tokens with their file, line and
// column, Statements tokens into statements. Read (and Import, from files and folders)
// interprets the Service Broker DDL into a scenario: the catalog, with every object's place
// in the scripts (file.Scenario.Places), the activation procedures read into reader
// programs, and a skeleton of workloads, readers and links marked to edit. Design.YAML
// writes it as a commented scenario file that always loads; Design.Diagnostics lints the
// scripts (docs/lint.md). docs/import.md says how each statement is read.
package tsql
