package builtin

import (
	"strconv"
	"strings"
	"time"
)

// dateTime is a parsed xsd:dateTime.
type dateTime struct {
	year                 int
	month, day           int
	hour, minute, second int
	frac                 string // fractional-second digits, without the point
	hasTZ                bool
	tzLex                string // the timezone as written ("Z", "-08:00") or ""
	tz                   int    // offset east of UTC, minutes
	instant              time.Time
}

// parseDateTime parses the xsd:dateTime lexical form
// -?YYYY-MM-DDThh:mm:ss(.s+)?(Z|(+|-)hh:mm)?
func parseDateTime(s string) (dateTime, bool) {
	var d dateTime
	neg := false
	if strings.HasPrefix(s, "-") {
		neg, s = true, s[1:]
	}
	i := strings.IndexByte(s, '-')
	if i < 4 || i > 9 || !digits(s[:i]) || (i > 4 && s[0] == '0') {
		return d, false
	}
	y, _ := strconv.Atoi(s[:i])
	if neg {
		y = -y
	}
	d.year = y
	s = s[i:]
	// -MM-DDThh:mm:ss
	if len(s) < 15 || s[0] != '-' || s[3] != '-' || s[6] != 'T' || s[9] != ':' || s[12] != ':' {
		return d, false
	}
	var ok bool
	if d.month, ok = two(s[1:3]); !ok {
		return d, false
	}
	if d.day, ok = two(s[4:6]); !ok {
		return d, false
	}
	if d.hour, ok = two(s[7:9]); !ok {
		return d, false
	}
	if d.minute, ok = two(s[10:12]); !ok {
		return d, false
	}
	if d.second, ok = two(s[13:15]); !ok {
		return d, false
	}
	s = s[15:]
	if strings.HasPrefix(s, ".") {
		j := 1
		for j < len(s) && s[j] >= '0' && s[j] <= '9' {
			j++
		}
		if j == 1 {
			return d, false
		}
		d.frac, s = s[1:j], s[j:]
	}
	d.tzLex = s
	switch {
	case s == "":
	case s == "Z":
		d.hasTZ = true
	case len(s) == 6 && (s[0] == '+' || s[0] == '-') && s[3] == ':':
		hh, ok1 := two(s[1:3])
		mm, ok2 := two(s[4:6])
		if !ok1 || !ok2 || hh > 14 || mm > 59 || (hh == 14 && mm != 0) {
			return d, false
		}
		d.hasTZ, d.tz = true, hh*60+mm
		if s[0] == '-' {
			d.tz = -d.tz
		}
	default:
		return d, false
	}
	if d.month < 1 || d.month > 12 || d.day < 1 || d.day > daysIn(d.year, d.month) ||
		d.minute > 59 || d.second > 59 {
		return d, false
	}
	if d.hour > 24 || (d.hour == 24 && (d.minute != 0 || d.second != 0 || strings.Trim(d.frac, "0") != "")) {
		return d, false
	}
	nanos := 0
	if d.frac != "" {
		f := (d.frac + "000000000")[:9]
		nanos, _ = strconv.Atoi(f)
	}
	local := time.Date(d.year, time.Month(d.month), d.day, d.hour, d.minute, d.second, nanos, time.UTC)
	if d.hour == 24 {
		// 24:00:00 is midnight at the start of the next day.
		d.year, d.month, d.day, d.hour = local.Year(), int(local.Month()), local.Day(), 0
	}
	d.instant = local.Add(-time.Duration(d.tz) * time.Minute)
	return d, true
}

// parseDate parses the xsd:date lexical form -?YYYY-MM-DD(Z|(+|-)hh:mm)? as
// the dateTime of its first instant (00:00:00, same timezone), which is how
// XPath compares dates (op:date-equal, op:date-less-than).
func parseDate(s string) (dateTime, bool) {
	body := strings.TrimPrefix(s, "-")
	i := strings.IndexByte(body, '-')
	if i < 0 || len(body) < i+6 {
		return dateTime{}, false
	}
	i += len(s) - len(body) + 6 // the end of -?YYYY-MM-DD in s
	return parseDateTime(s[:i] + "T00:00:00" + s[i:])
}

// canonicalDate is the canonical lexical form of the xsd:date whose first
// instant is d.
func (d dateTime) canonicalDate() string {
	s := d.canonical()
	i := strings.IndexByte(s, 'T')
	return s[:i] + s[i+len("T00:00:00"):]
}

func two(s string) (int, bool) {
	if len(s) != 2 || s[0] < '0' || s[0] > '9' || s[1] < '0' || s[1] > '9' {
		return 0, false
	}
	return int(s[0]-'0')*10 + int(s[1]-'0'), true
}

func daysIn(year, month int) int {
	switch month {
	case 4, 6, 9, 11:
		return 30
	case 2:
		if year%4 == 0 && (year%100 != 0 || year%400 == 0) {
			return 29
		}
		return 28
	}
	return 31
}

// maxTZ is the widest timezone offset, used for XSD's partial order between
// dateTimes with and without a timezone.
const maxTZ = 14 * time.Hour

// cmpDateTime compares per XML Schema §3.2.7.4: values with a timezone
// compare by instant; a value without a timezone stands for any instant
// within ±14h of its UTC reading, and the comparison is indeterminate (ok
// false) when the ranges overlap.
func cmpDateTime(a, b dateTime) (int, bool) {
	if a.hasTZ == b.hasTZ {
		return cmpInstant(a, b), true
	}
	if !a.hasTZ {
		c, ok := cmpDateTime(b, a)
		return -c, ok
	}
	// a has a timezone, b does not.
	switch {
	case a.instant.Before(b.instant.Add(-maxTZ)):
		return -1, true
	case a.instant.After(b.instant.Add(maxTZ)):
		return 1, true
	}
	return 0, false
}

// cmpInstant compares the instants of a and b, the fractional-second digits
// beyond the nanoseconds that time.Time keeps included.
func cmpInstant(a, b dateTime) int {
	if c := a.instant.Compare(b.instant); c != 0 {
		return c
	}
	x, y := subNanos(a.frac), subNanos(b.frac)
	for len(x) < len(y) {
		x += "0"
	}
	for len(y) < len(x) {
		y += "0"
	}
	return strings.Compare(x, y)
}

// subNanos returns the fractional-second digits past the ninth, without
// trailing zeros.
func subNanos(frac string) string {
	if len(frac) <= 9 {
		return ""
	}
	return strings.TrimRight(frac[9:], "0")
}

// canonical returns the canonical lexical form of d (XSD 1.1 §3.3.7.2, which F&O §19.1.2.2 casts to
// xsd:string): at least four year digits, seconds without trailing fractional zeros, 24:00:00 as
// 00:00:00 of the next day, a zero offset as Z and other offsets as ±hh:mm. The local time and the
// offset are kept.
func (d dateTime) canonical() string {
	var b strings.Builder
	y := d.year
	if y < 0 {
		b.WriteByte('-')
		y = -y
	}
	ys := strconv.Itoa(y)
	for i := len(ys); i < 4; i++ {
		b.WriteByte('0')
	}
	b.WriteString(ys)
	pad := func(sep byte, n int) {
		b.WriteByte(sep)
		b.WriteByte(byte('0' + n/10))
		b.WriteByte(byte('0' + n%10))
	}
	pad('-', d.month)
	pad('-', d.day)
	pad('T', d.hour)
	pad(':', d.minute)
	pad(':', d.second)
	if f := strings.TrimRight(d.frac, "0"); f != "" {
		b.WriteByte('.')
		b.WriteString(f)
	}
	switch {
	case !d.hasTZ:
	case d.tz == 0:
		b.WriteByte('Z')
	default:
		sign, tz := byte('+'), d.tz
		if tz < 0 {
			sign, tz = '-', -tz
		}
		pad(sign, tz/60)
		pad(':', tz%60)
	}
	return b.String()
}

// formatDateTime renders t as an xsd:dateTime with its timezone offset.
func formatDateTime(t time.Time) string {
	return t.Format("2006-01-02T15:04:05.999999999Z07:00")
}
