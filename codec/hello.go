package codec

import (
	"github.com/wirebench/wirebench/codec/cbor"
	"github.com/wirebench/wirebench/codec/internal/shape"
	"github.com/wirebench/wirebench/codec/schema"
)

// Hello is the agent's first message: the versions it speaks, its frame
// limit and its capabilities.
type Hello struct {
	Versions     []uint32     // key 1, always present
	MaxFrame     uint32       // key 2
	Capabilities Capabilities // key 3
	Token        Opt[string]  // key 4, the per-launch token
	Agent        string       // key 5, the agent's name and build
	Device       Opt[Device]  // key 6
}

// Welcome is the host's answer to Hello: the selected version, frame limit
// and session id on success, only Error on failure.
type Welcome struct {
	Version  Opt[uint32] // key 1
	MaxFrame Opt[uint32] // key 2
	Error    *Error      // key 3
	Session  Opt[uint64] // key 4
}

// Device describes the device the agent runs on.
type Device struct {
	Model   string  // key 0
	SDK     uint32  // key 1
	ABI     string  // key 2
	Display Display // key 3
}

// Display is a display's geometry.
type Display struct {
	Width      uint32 // key 0
	Height     uint32 // key 1
	DensityDPI uint32 // key 2
	Rotation   uint32 // key 3, quarter turns 0..3
}

// Kind returns KindHello.
func (*Hello) Kind() Kind { return KindHello }

// Kind returns KindWelcome.
func (*Welcome) Kind() Kind { return KindWelcome }

func (h *Hello) appendCBOR(dst []byte) ([]byte, error) {
	if err := checkText(h.Token.Val, "hello.token", ""); h.Token.Ok && err != nil {
		return dst, err
	}
	if err := checkText(h.Agent, "hello.agent", ""); err != nil {
		return dst, err
	}
	dst = cbor.AppendMapHead(dst, 5+present(h.Token.Ok, h.Device.Ok))
	dst = append(dst, schema.KeyKind, byte(KindHello), schema.KeyHelloVersions)
	dst = appendU32Array(dst, h.Versions)
	dst = appendUintField(dst, schema.KeyHelloMaxFrame, uint64(h.MaxFrame))
	dst = appendUintField(dst, schema.KeyHelloCapabilities, uint64(h.Capabilities))
	if h.Token.Ok {
		dst = appendTextField(dst, schema.KeyHelloToken, h.Token.Val)
	}
	dst = appendTextField(dst, schema.KeyHelloAgent, h.Agent)
	if h.Device.Ok {
		var err error
		if dst, err = h.Device.Val.appendField(append(dst, schema.KeyHelloDevice), "hello.device"); err != nil {
			return dst, err
		}
	}
	return dst, nil
}

func (w *Welcome) appendCBOR(dst []byte) ([]byte, error) {
	dst = cbor.AppendMapHead(dst, 1+present(w.Version.Ok, w.MaxFrame.Ok, w.Error != nil, w.Session.Ok))
	dst = append(dst, schema.KeyKind, byte(KindWelcome))
	if w.Version.Ok {
		dst = appendUintField(dst, schema.KeyWelcomeVersion, uint64(w.Version.Val))
	}
	if w.MaxFrame.Ok {
		dst = appendUintField(dst, schema.KeyWelcomeMaxFrame, uint64(w.MaxFrame.Val))
	}
	if w.Error != nil {
		var err error
		if dst, err = w.Error.appendCBOR(append(dst, schema.KeyWelcomeError), "welcome.error"); err != nil {
			return dst, err
		}
	}
	if w.Session.Ok {
		dst = appendUintField(dst, schema.KeyWelcomeSession, w.Session.Val)
	}
	return dst, nil
}

func (v *Device) appendField(dst []byte, field string) ([]byte, error) {
	if err := checkText(v.Model, field, ".model"); err != nil {
		return dst, err
	}
	if err := checkText(v.ABI, field, ".abi"); err != nil {
		return dst, err
	}
	dst = appendTextField(append(dst, 0xa4), schema.KeyDeviceModel, v.Model)
	dst = appendUintField(dst, schema.KeyDeviceSDK, uint64(v.SDK))
	dst = appendTextField(dst, schema.KeyDeviceABI, v.ABI)
	return v.Display.appendCBOR(append(dst, schema.KeyDeviceDisplay)), nil
}

func (v *Display) appendCBOR(dst []byte) []byte {
	dst = appendUintField(append(dst, 0xa4), schema.KeyDisplayWidth, uint64(v.Width))
	dst = appendUintField(dst, schema.KeyDisplayHeight, uint64(v.Height))
	dst = appendUintField(dst, schema.KeyDisplayDensityDPI, uint64(v.DensityDPI))
	return appendUintField(dst, schema.KeyDisplayRotation, uint64(v.Rotation))
}

func (e *Error) appendCBOR(dst []byte, field string) ([]byte, error) {
	if err := checkText(string(e.Code), field, ".code"); err != nil {
		return dst, err
	}
	if err := checkText(e.Message, field, ".message"); err != nil {
		return dst, err
	}
	dst = appendTextField(append(dst, 0xa3), schema.KeyErrorCode, string(e.Code))
	dst = appendTextField(dst, schema.KeyErrorMessage, e.Message)
	return appendBoolField(dst, schema.KeyErrorRetryable, e.Retryable), nil
}

func (d *decoder) hello(h *Hello, it mapIter) error {
	return d.walkValues(it, schema.Hello, KindHello, &h.Versions, &h.MaxFrame, &h.Capabilities, &h.Token, &h.Agent, &h.Device)
}

func (d *decoder) welcome(w *Welcome, it mapIter) error {
	return d.walkValues(it, schema.Welcome, KindWelcome, &w.Version, &w.MaxFrame, &w.Error, &w.Session)
}

func (d *decoder) device(v *Device) error {
	return d.scalars(schema.Device, &v.Model, &v.SDK, &v.ABI, &v.Display)
}

// display reads a display map in any layout (shape.ReadDisplay).
func (d *decoder) display(v *Display) error { return shape.ReadDisplay(&d.Decoder, displayTwin(v)) }

func (d *decoder) protoError(e *Error) error {
	return d.scalars(schema.Error, &e.Code, &e.Message, &e.Retryable)
}
