// Package tsql reads Service Broker T-SQL scripts (issue 17): deployment scripts with GO
// batch separators and SQLCMD mode (:setvar, $(name) substitution, :CONNECT), comments,
// bracketed and quoted identifiers, N'...' strings and case-insensitive keywords. This first
// part splits a script into batches, batches into tokens, each with its file, line and
// column, and tokens into statements named by verb, object and name; what each
// statement means, and the scenario they make, come next. It imports only the
// standard library.
package tsql
