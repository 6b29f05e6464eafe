module example.com/external

go 1.26.8

require github.com/sbsim/sbsim v0.0.0

require (
	github.com/HdrHistogram/hdrhistogram-go v1.4.0 // indirect
	go.yaml.in/yaml/v3 v3.0.6 // indirect
	gonum.org/v1/gonum v0.17.0 // indirect
)

replace github.com/sbsim/sbsim => ../../../..
