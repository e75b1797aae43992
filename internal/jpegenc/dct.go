package jpegenc

// The AAN forward DCT's multipliers (Arai, Agui and Nakajima, 1988, as
// Pennebaker and Mitchell give it in "JPEG", figure 4-8): cos(4π/16),
// cos(6π/16), cos(2π/16)-cos(6π/16), cos(2π/16)+cos(6π/16).
const (
	c4    = 0.707106781
	c6    = 0.382683433
	c2mc6 = 0.541196100
	c2pc6 = 1.306562965
)

// fdct transforms the 8×8 block b in place (rows, then columns) into
// frequencies scaled by 8·aanScale[u]·aanScale[v] (see aanScale), which
// the quantisation step removes.
func fdct(b *[64]float32) {
	for r := 0; r < 64; r += 8 {
		s := (*[8]float32)(b[r : r+8])
		s[0], s[1], s[2], s[3], s[4], s[5], s[6], s[7] = aan8(s[0], s[1], s[2], s[3], s[4], s[5], s[6], s[7])
	}
	for c := range 8 {
		b[c], b[c+8], b[c+16], b[c+24], b[c+32], b[c+40], b[c+48], b[c+56] = aan8(b[c], b[c+8], b[c+16], b[c+24], b[c+32], b[c+40], b[c+48], b[c+56])
	}
}

// aan8 is the one-dimensional AAN DCT of eight values: five multiplies,
// 29 additions.
func aan8(d0, d1, d2, d3, d4, d5, d6, d7 float32) (o0, o1, o2, o3, o4, o5, o6, o7 float32) {
	t0, t7 := d0+d7, d0-d7
	t1, t6 := d1+d6, d1-d6
	t2, t5 := d2+d5, d2-d5
	t3, t4 := d3+d4, d3-d4

	// even part
	e0, e3 := t0+t3, t0-t3
	e1, e2 := t1+t2, t1-t2
	z1 := (e2 + e3) * c4
	o0, o4 = e0+e1, e0-e1
	o2, o6 = e3+z1, e3-z1

	// odd part
	p0, p1, p2 := t4+t5, t5+t6, t6+t7
	z5 := (p0 - p2) * c6
	z2 := c2mc6*p0 + z5
	z4 := c2pc6*p2 + z5
	z3 := p1 * c4
	z11, z13 := t7+z3, t7-z3
	o1, o7 = z11+z4, z11-z4
	o3, o5 = z13-z2, z13+z2
	return
}
