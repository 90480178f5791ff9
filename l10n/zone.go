package l10n

import (
	"errors"
	"time"
)

// ErrZone is Zone's error: name is no IANA time zone.
var ErrZone = errors.New("not an IANA time zone such as UTC or Europe/Madrid")

// Zone is the IANA time zone name (UTC, Europe/Madrid), or ErrZone for
// anything else: "" and "Local" too, which are the server's zone to Go and
// no zone to Postgres.
func Zone(name string) (*time.Location, error) {
	if name == "" || name == "Local" || len(name) > 64 {
		return nil, ErrZone
	}
	loc, err := time.LoadLocation(name)
	if err != nil {
		return nil, ErrZone
	}
	return loc, nil
}
