package wirejson

import (
	"reflect"
	"strings"
	"testing"

	"github.com/wirebench/wirebench/codec"
)

// TestJSONNamesFollowSchema checks that the JSON form names every field
// of a protocol map as codec's schema table does, key by key: the JSON
// structs' tags list the map's names in key order (a struct may add
// informational fields, such as capability_names, which the schema does
// not have). The reading direction takes its names from the table
// itself.
func TestJSONNamesFollowSchema(t *testing.T) {
	extra := map[string]bool{"capability_names": true}
	for _, c := range []struct {
		v      any
		fields *codec.Fields
	}{
		{helloJSON{}, codec.HelloFields},
		{welcomeJSON{}, codec.WelcomeFields},
		{requestJSON{}, codec.RequestFields},
		{responseJSON{}, codec.ResponseFields},
		{nonceJSON{}, codec.PingFields},
		{ProtoError{}, codec.ErrorFields},
		{deviceJSON{}, codec.DeviceFields},
		{displayJSON{}, codec.DisplayFields},
		{snapshotJSON{}, codec.SnapshotFields},
		{windowJSON{}, codec.WindowFields},
		{nodeJSON{}, codec.NodeFields},
		{scrollJSON{}, codec.ScrollFields},
		{snapshotParamsJSON{}, codec.MethodSnapshot.ParamFields()},
		{boundsParamsJSON{}, codec.MethodBounds.ParamFields()},
		{tapParamsJSON{}, codec.MethodTap.ParamFields()},
		{longPressParamsJSON{}, codec.MethodLongPress.ParamFields()},
		{swipeParamsJSON{}, codec.MethodSwipe.ParamFields()},
		{keyParamsJSON{}, codec.MethodKey.ParamFields()},
		{typeTextParamsJSON{}, codec.MethodTypeText.ParamFields()},
		{setTextParamsJSON{}, codec.MethodSetText.ParamFields()},
		{screenshotParamsJSON{}, codec.MethodScreenshot.ParamFields()},
		{framesStartParamsJSON{}, codec.MethodFramesStart.ParamFields()},
		{streamJSON{}, codec.MethodResync.ParamFields()},
		{streamJSON{}, codec.MethodFramesStart.ResultFields()},
		{boundsResultJSON{}, codec.MethodBounds.ResultFields()},
		{screenshotResultJSON{}, codec.MethodScreenshot.ResultFields()},
		{seqJSON{}, codec.MethodResync.ResultFields()},
		{emptyJSON{}, codec.MethodTap.ResultFields()},
	} {
		typ := reflect.TypeOf(c.v)
		var got []string
		for i := range typ.NumField() {
			name, _, _ := strings.Cut(typ.Field(i).Tag.Get("json"), ",")
			if !extra[name] {
				got = append(got, name)
			}
		}
		var want []string
		for k := range c.fields.Len() {
			want = append(want, c.fields.Name(uint64(k)))
		}
		if !reflect.DeepEqual(got, want) {
			t.Errorf("%s names %q, the schema %q", typ.Name(), got, want)
		}
	}
}
