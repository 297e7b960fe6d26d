module github.com/ptxvm/ptxvm

go 1.26.0

require (
	github.com/alecthomas/participle/v2 v2.1.4
	golang.org/x/net v0.62.0
	golang.org/x/sync v0.24.0
	golang.org/x/sys v0.49.0
	golang.org/x/term v0.47.0
)

require (
	github.com/stretchr/testify v1.12.1
	go.yaml.in/yaml/v3 v3.0.5 // indirect
)
