module github.com/sbsim/sbsim

go 1.26.8

require (
	github.com/leanovate/gopter v0.2.11
	github.com/stretchr/testify v1.11.1
	gonum.org/v1/gonum v0.17.0
)

require (
	github.com/HdrHistogram/hdrhistogram-go v1.4.0 // indirect
	github.com/davecgh/go-spew v1.1.1 // indirect
	github.com/pmezard/go-difflib v1.0.0 // indirect
	gopkg.in/yaml.v3 v3.0.1 // indirect
)
