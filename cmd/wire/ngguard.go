package main

// pcapgo's NgReader allocates a packet's buffer from the length its block
// claims, up to 4 GiB, before reading it. ngGuard checks each packet
// block's claims against its own length and maxPacket first.

import (
	"encoding/binary"
	"fmt"
	"io"
)

// pcapng block types whose packet length NgReader allocates.
const (
	ngSectionHeader  = 0x0a0d0d0a
	ngInterface      = 1
	ngPacket         = 2 // obsolete Packet Block
	ngSimplePacket   = 3
	ngEnhancedPacket = 6
	ngByteOrderMagic = 0x1a2b3c4d
)

// ngGuard passes a pcapng stream on a block at a time, refusing a block
// that is not a whole number of 32-bit words of at least 12 bytes, and a
// packet block whose packet is over maxPacket or longer than the block.
type ngGuard struct {
	r     io.Reader
	head  [28]byte // the head of the block being passed on
	out   []byte   // head bytes checked and not yet passed on
	pass  uint32   // bytes of the block after out, passed on as they are
	order binary.ByteOrder
	block int // blocks read, for errors
	err   error
	// links are the link types of the interfaces of the section, in
	// full: NgReader keeps their low 8 bits.
	links []linkType
}

// linkType is the link type of the interface of a packet.
func (g *ngGuard) linkType(iface int) linkType {
	if iface < 0 || iface >= len(g.links) {
		return 0xffffffff
	}
	return g.links[iface]
}

func (g *ngGuard) Read(p []byte) (int, error) {
	if len(p) == 0 {
		return 0, nil
	}
	if len(g.out) == 0 && g.pass == 0 {
		if g.err != nil {
			return 0, g.err
		}
		g.err = g.nextBlock()
		if len(g.out) == 0 {
			return 0, g.err
		}
	}
	if len(g.out) > 0 {
		n := copy(p, g.out)
		g.out = g.out[n:]
		return n, nil
	}
	if uint32(len(p)) > g.pass {
		p = p[:g.pass]
	}
	n, err := g.r.Read(p)
	g.pass -= uint32(n)
	if err == io.EOF && g.pass > 0 {
		err = io.ErrUnexpectedEOF
	}
	return n, err
}

// nextBlock reads and checks the head of the next block into out. Bytes
// of a head cut short by the end of the stream are passed on, for
// NgReader to report.
func (g *ngGuard) nextBlock() error {
	n, err := io.ReadFull(g.r, g.head[:8])
	g.out = g.head[:n]
	if err != nil {
		return err
	}
	typ := binary.LittleEndian.Uint32(g.head[:4]) // the same both ways for a section header
	headLen := 8
	if typ == ngSectionHeader {
		n, err := io.ReadFull(g.r, g.head[8:12])
		g.out = g.head[:8+n]
		if err != nil {
			return eofIsUnexpected(err)
		}
		switch {
		case binary.BigEndian.Uint32(g.head[8:12]) == ngByteOrderMagic:
			g.order = binary.BigEndian
		case binary.LittleEndian.Uint32(g.head[8:12]) == ngByteOrderMagic:
			g.order = binary.LittleEndian
		default:
			return g.errorf("section header: byte-order magic % x is neither order of 1a2b3c4d", g.head[8:12])
		}
		headLen = 12
		g.links = g.links[:0]
	}
	if g.order == nil {
		return g.errorf("block type %#x before any section header", typ)
	}
	typ = g.order.Uint32(g.head[:4])
	length := g.order.Uint32(g.head[4:8])
	if length < 12 || length%4 != 0 {
		return g.errorf("block length %d: want a multiple of 4, at least 12", length)
	}
	// Packet blocks: read up to their packet length.
	var lenAt, before int // offset of the packet length, and the bytes before the packet data
	switch typ {
	case ngEnhancedPacket, ngPacket:
		lenAt, before = 20, 28
	case ngSimplePacket:
		lenAt, before = 8, 12
	}
	if typ == ngInterface {
		n, err := io.ReadFull(g.r, g.head[8:10])
		g.out = g.head[:8+n]
		if err != nil {
			return eofIsUnexpected(err)
		}
		headLen = 10
		if len(g.links) < 1<<16 {
			g.links = append(g.links, linkType(g.order.Uint16(g.head[8:10])))
		}
	} else if lenAt > 0 {
		if length < uint32(before)+4 {
			return g.errorf("packet block of %d bytes: too short for its fields", length)
		}
		n, err := io.ReadFull(g.r, g.head[headLen:before])
		g.out = g.head[:headLen+n]
		if err != nil {
			return eofIsUnexpected(err)
		}
		headLen = before
		claim := g.order.Uint32(g.head[lenAt:])
		if room := length - uint32(before) - 4; claim > room || claim > maxPacket {
			return g.errorf("packet block claims a packet of %d bytes in a block with room for %d (at most %d read)", claim, room, maxPacket)
		}
	}
	g.pass = length - uint32(headLen)
	g.block++
	return nil
}

func (g *ngGuard) errorf(format string, a ...any) error {
	g.out = nil // nothing of a refused block is passed on
	return fmt.Errorf("pcapng block %d: %s", g.block, fmt.Sprintf(format, a...))
}

func eofIsUnexpected(err error) error {
	if err == io.EOF {
		return io.ErrUnexpectedEOF
	}
	return err
}
