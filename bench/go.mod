module github.com/numerus-closus/numerus/bench

go 1.26.0

replace github.com/numerus-closus/numerus => ../

replace github.com/numerus-closus/numerus/redisstore => ../redisstore

require (
	github.com/go-redis/redis_rate/v10 v10.0.1
	github.com/numerus-closus/numerus v0.0.0-00010101000000-000000000000
	github.com/numerus-closus/numerus/redisstore v0.0.0-00010101000000-000000000000
	github.com/redis/go-redis/v9 v9.23.0
	github.com/sethvargo/go-limiter v1.1.0
	github.com/stretchr/testify v1.12.1
	github.com/throttled/throttled/v2 v2.15.0
	github.com/ulule/limiter/v3 v3.11.2
	go.uber.org/ratelimit v0.3.1
	golang.org/x/time v0.16.0
)

require (
	github.com/benbjohnson/clock v1.3.0 // indirect
	github.com/cespare/xxhash/v2 v2.3.0 // indirect
	github.com/hashicorp/golang-lru v0.5.4 // indirect
	github.com/pkg/errors v0.9.1 // indirect
	go.uber.org/atomic v1.12.0 // indirect
	go.yaml.in/yaml/v3 v3.0.5 // indirect
	golang.org/x/sys v0.48.0 // indirect
)
