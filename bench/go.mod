module github.com/numerus-closus/numerus/bench

go 1.26.0

replace github.com/numerus-closus/numerus => ../

require (
	github.com/go-redis/redis_rate/v10 v10.0.1
	github.com/numerus-closus/numerus v0.0.0-00010101000000-000000000000
	github.com/redis/go-redis/v9 v9.0.5
	github.com/sethvargo/go-limiter v1.1.0
	github.com/stretchr/testify v1.11.1
	github.com/throttled/throttled/v2 v2.15.0
	github.com/ulule/limiter/v3 v3.11.2
	go.uber.org/ratelimit v0.3.1
	golang.org/x/time v0.16.0
)

require (
	github.com/benbjohnson/clock v1.3.0 // indirect
	github.com/cespare/xxhash/v2 v2.2.0 // indirect
	github.com/davecgh/go-spew v1.1.1 // indirect
	github.com/dgryski/go-rendezvous v0.0.0-20200823014737-9f7001d12a5f // indirect
	github.com/hashicorp/golang-lru v0.5.4 // indirect
	github.com/kr/text v0.2.0 // indirect
	github.com/pkg/errors v0.9.1 // indirect
	github.com/pmezard/go-difflib v1.0.0 // indirect
	gopkg.in/yaml.v3 v3.0.1 // indirect
)
