//go:build !race

package grep

const raceBuild = false
