package invariant

import (
	"reflect"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/sbsim/sbsim/model"
)

// A conversation's history gives back every field of every record it keeps, whether it
// keeps the record compact or whole: each field of model.TraceRecord set alone, then all
// together, comes back the same (a field added to the record and not to compactRecord
// fails here).
func TestADialogHistoryKeepsEveryFieldOfItsRecords(t *testing.T) {
	var records []model.TraceRecord
	typ := reflect.TypeOf(model.TraceRecord{})
	all := model.TraceRecord{Conversation: conv}
	for i := range typ.NumField() {
		r := model.TraceRecord{Conversation: conv}
		for _, x := range []*model.TraceRecord{&r, &all} {
			f := reflect.ValueOf(x).Elem().Field(i)
			switch f.Kind() {
			case reflect.Bool:
				f.SetBool(true)
			case reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64:
				f.SetInt(int64(i + 3))
			case reflect.Uint8, reflect.Uint16, reflect.Uint32, reflect.Uint64:
				f.SetUint(uint64(i + 3))
			default:
				t.Fatalf("field %s of kind %v: the test does not know how to set it", typ.Field(i).Name, f.Kind())
			}
		}
		r.Conversation = conv
		records = append(records, r)
	}
	all.Conversation = conv
	records = append(records, all)
	require.Greater(t, len(records), historyLength, "enough records to wrap the ring")

	var h dialogHistory
	for i := range records {
		h.add(uint64(i+1), &records[i])
	}
	got := merge(h.entries(conv))
	assert.Equal(t, records[len(records)-historyLength:], got)
}
