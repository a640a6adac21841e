package eventrouter

import (
	"encoding/hex"
	"fmt"
	"net/netip"
	"strconv"
	"strings"
)

// isPgNetType reports a PostgreSQL network address type: inet, cidr,
// macaddr, macaddr8. The connector delivers each as a plain Connect string
// holding PostgreSQL's output form of the stored value (pgoutput's text),
// whatever form was inserted.
func isPgNetType(kind ConnectorKind, sqlType string) bool {
	if kind != Postgres && kind != "" {
		return false
	}
	switch strings.ToLower(strings.TrimSpace(sqlType)) {
	case "inet", "cidr", "macaddr", "macaddr8":
		return true
	}
	return false
}

// pgNetValue is the text PostgreSQL prints for an inet, cidr, macaddr or
// macaddr8 input, the value Debezium delivers. Inputs the emulator does
// not read the way the server does (hex IPv4 parts, an inet IPv4 address of fewer than four parts, a zone, padding
// around the value) are refused, not guessed.
func pgNetValue(sqlType, v string) (string, error) {
	t := strings.ToLower(strings.TrimSpace(sqlType))
	var out string
	var err error
	switch t {
	case "inet", "cidr":
		out, err = pgInet(v, t == "cidr")
	case "macaddr":
		out, err = pgMacaddr(v)
	case "macaddr8":
		out, err = pgMacaddr8(v)
	default:
		err = fmt.Errorf("not a network type")
	}
	if err != nil {
		return "", fmt.Errorf("%w: %s value %q: %v", ErrInvalidEvent, t, v, err)
	}
	return out, nil
}

// pgInet reads an inet or cidr value: address[/bits]. cidr takes an IPv4
// address of one to four parts ("10.1/16" is 10.1.0.0/16) and, without
// bits, the classful mask widened to the parts written (PostgreSQL's
// inet_cidr_pton_ipv4); its bits right of the mask must be zero. inet
// prints the mask only when it is narrower than the address; cidr always.
func pgInet(v string, cidr bool) (string, error) {
	addrText, bitsText, hasBits := strings.Cut(v, "/")
	bits := -1
	if hasBits {
		n, err := strconv.Atoi(bitsText)
		if err != nil || n < 0 || bitsText != strconv.Itoa(n) {
			return "", fmt.Errorf("invalid mask %q", bitsText)
		}
		bits = n
	}
	var addr netip.Addr
	if strings.Contains(addrText, ":") {
		a, err := netip.ParseAddr(addrText)
		if err != nil || a.Zone() != "" {
			return "", fmt.Errorf("invalid IPv6 address")
		}
		addr = a
		if bits < 0 {
			bits = 128
		}
	} else {
		parts := strings.Split(addrText, ".")
		if len(parts) > 4 || (!cidr && len(parts) != 4) {
			return "", fmt.Errorf("want four dotted decimal parts")
		}
		var b [4]byte
		for i, p := range parts {
			n, err := strconv.Atoi(p)
			if err != nil || n < 0 || n > 255 || len(p) > 3 || strings.Trim(p, "0123456789") != "" {
				return "", fmt.Errorf("part %q: want 0-255 in decimal", p)
			}
			b[i] = byte(n)
		}
		if bits < 0 {
			bits = 32
			if cidr {
				switch {
				case b[0] >= 240:
					bits = 32
				case b[0] >= 224:
					bits = 8
				case b[0] >= 192:
					bits = 24
				case b[0] >= 128:
					bits = 16
				default:
					bits = 8
				}
				if bits < len(parts)*8 {
					bits = len(parts) * 8
				}
				if bits == 8 && b[0] == 224 {
					bits = 4
				}
			}
		}
		addr = netip.AddrFrom4(b)
	}
	if bits > addr.BitLen() {
		return "", fmt.Errorf("mask /%d longer than the address", bits)
	}
	if cidr {
		if p := netip.PrefixFrom(addr, bits).Masked(); p.Addr() != addr {
			return "", fmt.Errorf("value has bits set to right of mask")
		}
	}
	text := addr.String()
	if addr.Is6() {
		text = pgIPv6(addr.As16())
	}
	if cidr || bits != addr.BitLen() {
		text += "/" + strconv.Itoa(bits)
	}
	return text, nil
}

// pgIPv6 prints an IPv6 address as PostgreSQL's inet_net_ntop does (BIND's
// algorithm): lower-case hex words, the longest run of two or more zero
// words (the first of equal runs) as "::", and the last 32 bits in dotted
// decimal when the address is IPv4-compatible (::a.b.c.d, but not ::1) or
// IPv4-mapped (::ffff:a.b.c.d).
func pgIPv6(a [16]byte) string {
	var w [8]uint16
	for i := range w {
		w[i] = uint16(a[2*i])<<8 | uint16(a[2*i+1])
	}
	bestBase, bestLen, curBase, curLen := -1, 0, -1, 0
	for i := 0; i < 8; i++ {
		if w[i] == 0 {
			if curBase < 0 {
				curBase, curLen = i, 1
			} else {
				curLen++
			}
			continue
		}
		if curBase >= 0 {
			if bestBase < 0 || curLen > bestLen {
				bestBase, bestLen = curBase, curLen
			}
			curBase = -1
		}
	}
	if curBase >= 0 && (bestBase < 0 || curLen > bestLen) {
		bestBase, bestLen = curBase, curLen
	}
	if bestBase >= 0 && bestLen < 2 {
		bestBase = -1
	}
	var b strings.Builder
	for i := 0; i < 8; i++ {
		if bestBase >= 0 && i >= bestBase && i < bestBase+bestLen {
			if i == bestBase {
				b.WriteByte(':')
			}
			continue
		}
		if i != 0 {
			b.WriteByte(':')
		}
		if i == 6 && bestBase == 0 && (bestLen == 6 || (bestLen == 7 && w[7] != 1) || (bestLen == 5 && w[5] == 0xffff)) {
			fmt.Fprintf(&b, "%d.%d.%d.%d", a[12], a[13], a[14], a[15])
			return b.String()
		}
		b.WriteString(strconv.FormatUint(uint64(w[i]), 16))
	}
	if bestBase >= 0 && bestBase+bestLen == 8 {
		b.WriteByte(':')
	}
	return b.String()
}

// macaddrLayouts are the macaddr input forms PostgreSQL documents, x a hex
// digit: the separator and the grouping must be one of these.
var macaddrLayouts = []string{
	"xx:xx:xx:xx:xx:xx", "xx-xx-xx-xx-xx-xx", "xxxxxx:xxxxxx", "xxxxxx-xxxxxx",
	"xxxx.xxxx.xxxx", "xxxx-xxxx-xxxx", "xxxxxxxxxxxx",
}

// pgMacaddr reads a macaddr in one of PostgreSQL's documented forms
// (08-00-2b-01-02-03, 08002b:010203, 0800.2b01.0203, ...) and prints it
// as the server does: 08:00:2b:01:02:03.
func pgMacaddr(v string) (string, error) {
	for _, l := range macaddrLayouts {
		if len(l) != len(v) {
			continue
		}
		digits := make([]byte, 0, 12)
		ok := true
		for i := 0; i < len(l) && ok; i++ {
			if l[i] == 'x' {
				ok = isHex(v[i])
				digits = append(digits, v[i])
			} else {
				ok = v[i] == l[i]
			}
		}
		if ok {
			return macText(string(digits))
		}
	}
	return "", fmt.Errorf("want a MAC address such as 08:00:2b:01:02:03")
}

// pgMacaddr8 reads a macaddr8: 6 or 8 bytes as hex digit pairs, separated
// by one kind of separator (':', '-' or '.') or none, between any pairs
// (one after the last pair too, as PostgreSQL takes it).
// A 6-byte address is stored as EUI-64 with ff:fe in the middle
// (08:00:2b:01:02:03 is 08:00:2b:ff:fe:01:02:03).
func pgMacaddr8(v string) (string, error) {
	var digits []byte
	var sep byte
	for i := 0; i < len(v); {
		if len(digits) > 0 && len(digits)%2 == 0 && strings.IndexByte(":-.", v[i]) >= 0 {
			if sep != 0 && v[i] != sep {
				return "", fmt.Errorf("mixed separators")
			}
			sep = v[i]
			i++
			continue
		}
		if i+1 >= len(v) || !isHex(v[i]) || !isHex(v[i+1]) {
			return "", fmt.Errorf("want hex digit pairs such as 08:00:2b:01:02:03:04:05")
		}
		digits = append(digits, v[i], v[i+1])
		i += 2
	}
	switch len(digits) {
	case 12:
		d := string(digits)
		return macText(d[:6] + "fffe" + d[6:])
	case 16:
		return macText(string(digits))
	}
	return "", fmt.Errorf("want 6 or 8 bytes")
}

func isHex(c byte) bool {
	return (c >= '0' && c <= '9') || (c >= 'a' && c <= 'f') || (c >= 'A' && c <= 'F')
}

// macText prints hex digits as lower-case bytes joined by colons.
func macText(digits string) (string, error) {
	b, err := hex.DecodeString(digits)
	if err != nil {
		return "", err
	}
	parts := make([]string, len(b))
	for i, x := range b {
		parts[i] = fmt.Sprintf("%02x", x)
	}
	return strings.Join(parts, ":"), nil
}
