module github.com/numerus-closus/numerus/upstream

go 1.25

replace github.com/numerus-closus/numerus => ../

require (
	github.com/dunglas/httpsfv v1.1.2
	github.com/numerus-closus/numerus v0.0.0
	github.com/stretchr/testify v1.11.1
	go.uber.org/goleak v1.3.0
)

require (
	github.com/davecgh/go-spew v1.1.1 // indirect
	github.com/kr/text v0.2.0 // indirect
	github.com/pmezard/go-difflib v1.0.0 // indirect
	gopkg.in/yaml.v3 v3.0.1 // indirect
	pgregory.net/rapid v1.2.0 // indirect
)
