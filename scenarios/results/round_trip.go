package results

import (
	"encoding/csv"
	"errors"
	"fmt"
	"io"
	"strconv"

	"github.com/sbsim/sbsim/scenarios"
)

// RoundTripCDFFile is the round trip distribution of each workload that had replies.
const RoundTripCDFFile = "round_trip_cdf.csv"

// RoundTripCDFHeader is the header line of round_trip_cdf.csv.
var RoundTripCDFHeader = []string{"workload", "round_trip_s", "fraction"}

// RoundTripRow is one row of round_trip_cdf.csv: Fraction of the workload's replies came
// back at most RoundTripS seconds after their request's SEND commit.
type RoundTripRow struct {
	Workload   string
	RoundTripS float64
	Fraction   float64
}

// roundTripRows returns the round trip distribution of every workload of res that had a
// reply, in the scenario's order, each by round trip.
func roundTripRows(res *scenarios.Result) []RoundTripRow {
	var rows []RoundTripRow
	for _, w := range res.Workloads {
		for _, p := range w.RoundTripCDF {
			rows = append(rows, RoundTripRow{Workload: w.Name, RoundTripS: seconds(p.Latency), Fraction: p.Fraction})
		}
	}
	return rows
}

// WriteRoundTripCDF writes the round trip distribution of every workload of res as
// round_trip_cdf.csv: RoundTripCDFHeader, then the distribution's steps, workload by
// workload.
func WriteRoundTripCDF(w io.Writer, res *scenarios.Result) error {
	return writeRoundTripRows(w, roundTripRows(res))
}

func writeRoundTripRows(w io.Writer, rows []RoundTripRow) error {
	cw := csv.NewWriter(w)
	if err := cw.Write(RoundTripCDFHeader); err != nil {
		return fmt.Errorf("round trip CDF: %w", err)
	}
	for _, r := range rows {
		if err := cw.Write([]string{r.Workload, formatFloat(r.RoundTripS), formatFloat(r.Fraction)}); err != nil {
			return fmt.Errorf("round trip CDF: %w", err)
		}
	}
	cw.Flush()
	if err := cw.Error(); err != nil {
		return fmt.Errorf("round trip CDF: %w", err)
	}
	return nil
}

// ReadRoundTripCDF reads a round_trip_cdf.csv that WriteRoundTripCDF wrote.
func ReadRoundTripCDF(r io.Reader) ([]RoundTripRow, error) {
	recs, err := readCSV(r, RoundTripCDFHeader)
	if err != nil {
		return nil, fmt.Errorf("round trip CDF: %w", err)
	}
	rows := make([]RoundTripRow, 0, len(recs))
	for i, rec := range recs {
		x, err1 := strconv.ParseFloat(rec[1], 64)
		y, err2 := strconv.ParseFloat(rec[2], 64)
		if err := errors.Join(err1, err2); err != nil {
			return nil, fmt.Errorf("round trip CDF: line %d: %w", i+2, err)
		}
		rows = append(rows, RoundTripRow{Workload: rec[0], RoundTripS: x, Fraction: y})
	}
	return rows, nil
}
