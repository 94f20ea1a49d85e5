// Package upstream paces outbound HTTP by what the upstream says of its quota.
package upstream
