package model

import "fmt"

// panicOf runs f and returns what it panicked with, formatted, or "" when it did not.
func panicOf(f func()) (msg string) {
	defer func() {
		if r := recover(); r != nil {
			msg = fmt.Sprint(r)
		}
	}()
	f()
	return ""
}
