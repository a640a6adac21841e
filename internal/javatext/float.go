package javatext

import (
	"math"
	"strconv"
)

// FormatDouble returns Java's Double.toString(f) (JDK 19+).
func FormatDouble(f float64) string { return string(appendJava(nil, f, 64)) }

// FormatFloat returns Java's Float.toString(f) (JDK 19+).
func FormatFloat(f float32) string { return string(appendJava(nil, float64(f), 32)) }

// AppendDouble appends Java's Double.toString(f) (JDK 19+) to buf.
func AppendDouble(buf []byte, f float64) []byte { return appendJava(buf, f, 64) }

// AppendFloat appends Java's Float.toString(f) (JDK 19+) to buf.
func AppendFloat(buf []byte, f float32) []byte { return appendJava(buf, float64(f), 32) }

// AppendJSONDouble appends f as a default Jackson JsonGenerator writes a
// double: Double.toString for finite values, the quoted strings "NaN",
// "Infinity" and "-Infinity" otherwise.
func AppendJSONDouble(buf []byte, f float64) []byte { return appendJSON(buf, f, 64) }

// AppendJSONFloat is AppendJSONDouble for a float (Float.toString).
func AppendJSONFloat(buf []byte, f float32) []byte { return appendJSON(buf, float64(f), 32) }

func appendJSON(buf []byte, f float64, bits int) []byte {
	if math.IsNaN(f) || math.IsInf(f, 0) {
		buf = append(buf, '"')
		buf = appendJava(buf, f, bits)
		return append(buf, '"')
	}
	return appendJava(buf, f, bits)
}

// appendJava is Double.toString (bits 64) or Float.toString (bits 32; f
// then holds a float32 value) as specified since JDK 19.
func appendJava(buf []byte, f float64, bits int) []byte {
	switch {
	case math.IsNaN(f):
		return append(buf, "NaN"...)
	case math.IsInf(f, 1):
		return append(buf, "Infinity"...)
	case math.IsInf(f, -1):
		return append(buf, "-Infinity"...)
	case f == 0:
		if math.Signbit(f) {
			return append(buf, "-0.0"...)
		}
		return append(buf, "0.0"...)
	}
	if f < 0 {
		buf = append(buf, '-')
		f = -f
	}
	var tmp [32]byte
	e := strconv.AppendFloat(tmp[:0], f, 'e', -1, bits) // d[.ddd]e±XX, shortest
	if e[1] != '.' {
		// One digit suffices. JDK 19+ then picks the closest decimal of
		// one or two digits, which matters only for subnormals:
		// Double.MIN_VALUE is 4.9E-324, Float.MIN_VALUE 1.4E-45.
		e = strconv.AppendFloat(tmp[:0], f, 'e', 1, bits)
	}
	// Split d.ddde±XX into significant digits and decimal exponent.
	var digits [24]byte
	nd := 0
	i := 0
	for ; e[i] != 'e'; i++ {
		if e[i] != '.' {
			digits[nd] = e[i]
			nd++
		}
	}
	exp, _ := strconv.Atoi(string(e[i+1:]))
	for nd > 1 && digits[nd-1] == '0' {
		nd--
	}
	d := digits[:nd]
	if f >= 1e-3 && f < 1e7 {
		// plain notation: point is the number of digits before the point
		switch point := exp + 1; {
		case point <= 0:
			buf = append(buf, "0."...)
			for ; point < 0; point++ {
				buf = append(buf, '0')
			}
			buf = append(buf, d...)
		case point >= len(d):
			buf = append(buf, d...)
			for j := len(d); j < point; j++ {
				buf = append(buf, '0')
			}
			buf = append(buf, ".0"...)
		default:
			buf = append(buf, d[:point]...)
			buf = append(buf, '.')
			buf = append(buf, d[point:]...)
		}
		return buf
	}
	buf = append(buf, d[0], '.')
	if len(d) > 1 {
		buf = append(buf, d[1:]...)
	} else {
		buf = append(buf, '0')
	}
	buf = append(buf, 'E')
	return strconv.AppendInt(buf, int64(exp), 10)
}
