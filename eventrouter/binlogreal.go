package eventrouter

import (
	"math"
	"regexp"
	"strconv"
	"strings"
)

// binlogReal reports a MySQL / MariaDB floating-point base type (as
// parseSQLType returns it).
func binlogReal(base string) bool { return base == "float" || base == "double" || base == "real" }

var binlogRealScaleRe = regexp.MustCompile(`^\s*(float|double|real)\s*\(\s*\d+\s*,\s*(\d+)\s*\)`)

// binlogRealScale returns the declared scale D of a MySQL / MariaDB
// FLOAT(M,D), DOUBLE(M,D) or REAL(M,D) column (UNSIGNED and ZEROFILL
// allowed); ok is false without one.
func binlogRealScale(sqlType string) (int, bool) {
	m := binlogRealScaleRe.FindStringSubmatch(strings.ToLower(sqlType))
	if m == nil {
		return 0, false
	}
	d, err := strconv.Atoi(m[2])
	return d, err == nil
}

// binlogRealValue is the value the binlog connector delivers for a MySQL /
// MariaDB FLOAT or DOUBLE column given the number f written into it: a
// declared scale D rounds the fraction as the server's truncate_double
// does (floor(f) + rint(frac·10^D)/10^D, ties to even), a FLOAT keeps a
// float32, and a FLOAT(M,D), whose schema is a FLOAT64, delivers that
// float32 widened.
func binlogRealValue(sqlType string, s *Schema, f float64) any {
	base, _ := parseSQLType(sqlType)
	if d, ok := binlogRealScale(sqlType); ok && d < 31 && !math.IsInf(f, 0) && !math.IsNaN(f) {
		p := math.Pow(10, float64(d))
		fl := math.Floor(f)
		f = fl + math.RoundToEven((f-fl)*p)/p
	}
	if base == "float" {
		if s.Type == Float64 {
			return float64(float32(f))
		}
		return float32(f)
	}
	if s.Type == Float32 {
		return float32(f)
	}
	return f
}
