module github.com/numerus-closus/numerus/bench

go 1.26.0

replace github.com/numerus-closus/numerus => ../

require (
	github.com/numerus-closus/numerus v0.0.0-00010101000000-000000000000
	go.uber.org/ratelimit v0.3.1
	golang.org/x/time v0.16.0
)

require github.com/benbjohnson/clock v1.3.0 // indirect
