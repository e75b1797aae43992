package support

import (
	"bytes"
	"encoding/binary"
	"hash/crc32"
	"image"
	"image/png"
	"math/rand/v2"
	"slices"

	"github.com/wirebench/wirebench/codec"
	"github.com/wirebench/wirebench/codec/schema"
)

// Seeded, deterministic inputs for the benchmarks and the budget tests.
// Every generator draws from math/rand/v2's PCG, whose sequence is fixed by
// its specification, so a seed gives the same bytes on every machine and
// Go release (except ScreenshotPNG's compressed image data, which follows
// compress/flate).

// Seed is the seed of the benchmarks' inputs.
const Seed int64 = 20260

// Snapshot sizes of the benchmarks.
const (
	SnapshotSmall = 500
	SnapshotLarge = 5000
)

// ScreenshotFrameLen is the frame length (header and payload) of the
// response_screenshot_256k message: exactly 256 KiB, so that a frame read
// of it compares byte for byte with a memmove of 256 KiB.
const ScreenshotFrameLen = 256 << 10

// Named is a seeded message with the name the benchmarks give it.
type Named struct {
	Name string
	Msg  codec.Message
}

// Seeded returns the benchmarks' seeded messages, built from Seed: a
// bounds result of 64 nodes, snapshots of SnapshotSmall and SnapshotLarge
// nodes, and a screenshot whose frame is ScreenshotFrameLen bytes. Each
// call builds new values.
func Seeded() []Named {
	out := make([]Named, len(seededNames))
	for i, name := range seededNames {
		out[i] = Named{name, seeded(name)}
	}
	return out
}

// seededNames are the names of Seeded's messages, in its order.
var seededNames = []string{"response_bounds_64", "response_snapshot_500", "response_snapshot_5000", "response_screenshot_256k"}

// SeededMessage builds the one seeded message of that name, alone (a
// benchmark that holds only the message it times builds it so), and
// reports whether there is one.
func SeededMessage(name string) (codec.Message, bool) {
	if !slices.Contains(seededNames, name) {
		return nil, false
	}
	return seeded(name), true
}

// seeded builds the seeded message name, one of seededNames.
func seeded(name string) codec.Message {
	switch name {
	case "response_bounds_64":
		return &codec.Response{ID: 5, Method: codec.MethodBounds, Result: BoundsResult(64, Seed)}
	case "response_snapshot_500":
		return &codec.Response{ID: 1, Method: codec.MethodSnapshot, Result: Snapshot(SnapshotSmall, Seed)}
	case "response_snapshot_5000":
		return &codec.Response{ID: 1, Method: codec.MethodSnapshot, Result: Snapshot(SnapshotLarge, Seed)}
	}
	return ScreenshotResponse(ScreenshotFrameLen, Seed)
}

func newRand(seed int64, stream uint64) *rand.Rand {
	return rand.New(rand.NewPCG(uint64(seed), 0x77697265_62656e63^stream)) // "wirebenc"
}

// Pools the generator draws from: what uiautomator dumps of real apps show.
var (
	containerClasses = []string{
		"android.widget.LinearLayout",
		"android.widget.FrameLayout",
		"android.widget.RelativeLayout",
		"androidx.constraintlayout.widget.ConstraintLayout",
		"androidx.cardview.widget.CardView",
		"android.view.ViewGroup",
		"androidx.coordinatorlayout.widget.CoordinatorLayout",
		"com.google.android.material.appbar.AppBarLayout",
	}
	spineClasses = []string{
		"android.widget.LinearLayout",
		"android.widget.FrameLayout",
		"androidx.constraintlayout.widget.ConstraintLayout",
		"androidx.coordinatorlayout.widget.CoordinatorLayout",
		"androidx.drawerlayout.widget.DrawerLayout",
		"android.view.ViewGroup",
		"androidx.viewpager.widget.ViewPager",
		"androidx.fragment.app.FragmentContainerView",
	}
	listClasses = []string{
		"androidx.recyclerview.widget.RecyclerView",
		"androidx.recyclerview.widget.RecyclerView",
		"android.widget.ListView",
		"android.widget.ScrollView",
		"androidx.core.widget.NestedScrollView",
	}
	carouselClasses = []string{
		"androidx.recyclerview.widget.RecyclerView",
		"android.widget.HorizontalScrollView",
		"androidx.viewpager2.widget.ViewPager2",
	}
	leafClasses = []string{ // weighted by repetition
		"android.widget.TextView", "android.widget.TextView", "android.widget.TextView", "android.widget.TextView",
		"android.widget.ImageView", "android.widget.ImageView", "android.widget.ImageView",
		"android.widget.Button", "android.widget.ImageButton",
		"android.widget.CheckBox", "android.widget.Switch",
		"android.widget.EditText",
		"android.view.View",
		"android.widget.ProgressBar",
		"android.widget.RadioButton",
		"com.google.android.material.chip.Chip",
	}
	resNames = []string{
		"title", "subtitle", "summary", "icon", "avatar", "thumbnail", "price", "badge", "label",
		"item_root", "container", "content_frame", "card", "row", "header", "footer", "action_button",
		"btn_buy", "btn_share", "checkbox", "toggle", "search_src_text", "chip_group", "divider",
		"rating", "timestamp", "message_text", "sender_name", "progress",
	}
	words = []string{
		"Welcome", "back", "Check", "out", "Settings", "Profile", "Messages", "Search", "Cart", "Sale",
		"today", "new", "Photos", "Shared", "with", "you", "Notifications", "Privacy", "Account", "Help",
		"café", "crème", "brûlée", "naïve", "Zürich", "São", "Paulo", "Kraków", "Ångström", "señor",
		"東京", "渋谷", "日本語", "北京", "안녕하세요", "Привет", "Ελληνικά", "مرحبا",
		"🎉", "🚀", "❤️", "👍", "€12,99", "$4.50", "3 items", "12:45", "98%", "2 min ago",
	}
	hints  = []string{"Search", "Email", "Password", "Type a message", "Name", "Rechercher…", "検索"}
	states = []string{"On", "Off", "Checked", "Not checked", "Selected", "Expanded", "Collapsed", "50 percent"}
	descs  = []string{"Navigate up", "More options", "Open navigation drawer", "Profile picture", "Share", "Favourite",
		"Photo de profil de Zoë", "Play video", "Close", "Add to cart", "写真"}
	appPackages = []string{"com.example.shop", "com.example.mail", "org.example.news", "com.example.maps", "net.example.chat"}
	appTitles   = []string{"Shop", "Mail", "News", "Maps", "Chat"}
	displays    = []codec.Display{
		{Width: 1080, Height: 2400, DensityDPI: 420},
		{Width: 1440, Height: 3120, DensityDPI: 560},
		{Width: 720, Height: 1600, DensityDPI: 320},
		{Width: 1080, Height: 2340, DensityDPI: 440},
	}
)

// Window types of AccessibilityWindowInfo.
const (
	windowApplication = 1
	windowInputMethod = 2
	windowSystem      = 3
)

// Tree depth of the application window: at least minAppDepth levels once
// there are nodes enough, never more than maxAppDepth.
const (
	minAppDepth = 8
	maxAppDepth = 25
)

type snapGen struct {
	r      *rand.Rand
	s      *codec.Snapshot
	index  map[string]uint32
	nextID uint32
	appPkg uint32
}

// str interns s in the snapshot's string table.
func (g *snapGen) str(s string) uint32 {
	if i, ok := g.index[s]; ok {
		return i
	}
	i := uint32(len(g.s.Strings))
	g.s.Strings = append(g.s.Strings, s)
	g.index[s] = i
	return i
}

func (g *snapGen) pick(pool []string) string { return pool[g.r.IntN(len(pool))] }

// text is one to four words from the pool: mostly ASCII, with accents,
// CJK, Cyrillic, Greek, Arabic and emoji among them.
func (g *snapGen) text() string {
	n := 1 + g.r.IntN(4)
	var b []byte
	for i := 0; i < n; i++ {
		if i > 0 {
			b = append(b, ' ')
		}
		b = append(b, g.pick(words)...)
	}
	return string(b)
}

// Snapshot returns a snapshot of exactly nodes nodes (none for nodes <= 0),
// the same for the same seed: an application window whose tree is 8 to 25
// levels deep (once there are nodes enough) with lists, carousels and
// cards, a status bar and navigation bar owned by com.android.systemui, and
// sometimes an input method or a modal permission dialog; class, package
// and resource-package names in the string table; text with some
// non-ASCII; every node's bounds inside its parent's; scroll semantics on
// the lists.
func Snapshot(nodes int, seed int64) *codec.Snapshot {
	nodes = max(nodes, 0)
	r := newRand(seed, 1)
	disp := displays[r.IntN(len(displays))]
	g := &snapGen{r: r, s: &codec.Snapshot{Strings: []string{}, Display: codec.Some(disp)}, index: map[string]uint32{}}
	app := r.IntN(len(appPackages))
	g.appPkg = g.str(appPackages[app])
	sysui := g.str("com.android.systemui")
	W, H := int32(disp.Width), int32(disp.Height)
	statusH, navH := H/38, H/19

	// The node budget of each window; the application gets the rest.
	status := min(nodes/40, 18)
	nav := min(nodes/150, 4)
	ime := 0
	if nodes >= 100 && r.IntN(100) < 40 {
		ime = min(nodes/10, 44)
	}
	dialog := 0
	if nodes >= 60 && r.IntN(100) < 30 {
		dialog = 5 + r.IntN(4)
	}
	appN := nodes - status - nav - ime - dialog

	wid := uint32(1 + r.IntN(40))
	newWindow := func(typ uint32, layer int32, b codec.Bounds) codec.Window {
		wid += uint32(1 + r.IntN(5))
		return codec.Window{ID: wid, Type: typ, Layer: layer, Bounds: b}
	}

	appWin := newWindow(windowApplication, 0, codec.Bounds{Left: 0, Top: 0, Right: W, Bottom: H})
	appWin.Flags = schema.WindowActive
	appWin.Title = codec.Some(appTitles[app])
	appWin.Package = codec.Some(g.appPkg)
	appWin.EmitsEvents = codec.Some(true)
	focused := &appWin
	var dlgWin, imeWin *codec.Window
	if dialog > 0 {
		w := newWindow(windowApplication, 1, codec.Bounds{Left: W / 12, Top: H / 3, Right: W - W/12, Bottom: H - H/3})
		w.Title = codec.Some("Allow " + appTitles[app] + " to send you notifications?")
		w.Package = codec.Some(g.str("com.google.android.permissioncontroller"))
		w.Owner = w.Package
		w.Modal = true
		w.EmitsEvents = codec.Some(true)
		dlgWin, focused = &w, &w
	}
	if ime > 0 {
		w := newWindow(windowInputMethod, 2, codec.Bounds{Left: 0, Top: H - H*2/5, Right: W, Bottom: H - navH})
		w.Package = codec.Some(g.str("com.google.android.inputmethod.latin"))
		w.Owner = w.Package
		w.EmitsEvents = codec.Some(r.IntN(2) == 0)
		imeWin = &w
	}
	statusWin := newWindow(windowSystem, 3, codec.Bounds{Left: 0, Top: 0, Right: W, Bottom: statusH})
	statusWin.Title = codec.Some("Status bar")
	statusWin.Package, statusWin.Owner = codec.Some(sysui), codec.Some(sysui)
	navWin := newWindow(windowSystem, 4, codec.Bounds{Left: 0, Top: H - navH, Right: W, Bottom: H})
	navWin.Package, navWin.Owner = codec.Some(sysui), codec.Some(sysui)
	navWin.EmitsEvents = codec.Some(false)
	focused.Flags |= schema.WindowFocused

	// Trees, in a fixed order so that node ids follow the window order.
	if appN > 0 {
		appWin.Root = g.appTree(appWin.Bounds, statusH, appN, imeWin != nil)
	}
	if dlgWin != nil {
		dlgWin.Root = g.dialogTree(dlgWin.Bounds, dialog, appTitles[app])
	}
	if imeWin != nil {
		imeWin.Root = g.keyboardTree(imeWin.Bounds, ime)
	}
	if status > 0 {
		statusWin.Root = g.barTree(statusWin.Bounds, status, sysui, []string{"clock", "wifi", "mobile", "battery", "notification_icon"})
	}
	if nav > 0 {
		navWin.Root = g.barTree(navWin.Bounds, nav, sysui, []string{"back", "home", "recent_apps", "home_handle"})
	}
	g.s.Windows = append(g.s.Windows, appWin)
	if dlgWin != nil {
		g.s.Windows = append(g.s.Windows, *dlgWin)
	}
	if imeWin != nil {
		g.s.Windows = append(g.s.Windows, *imeWin)
	}
	g.s.Windows = append(g.s.Windows, statusWin, navWin)
	g.s.Seq = uint64(1 + r.IntN(100000))
	return g.s
}

// node returns a new node with the next id.
func (g *snapGen) node(class string, b codec.Bounds, flags uint32) codec.Node {
	g.nextID++
	return codec.Node{ID: g.nextID, Class: g.str(class), Bounds: b, Flags: flags | schema.NodeVisible}
}

func (g *snapGen) res(n *codec.Node, pkg uint32, name string) {
	n.ResPkg, n.ResName = codec.Some(pkg), name
}

// split cuts b into n slices along one axis (vertical: stacked top to
// bottom), inside a padding, every slice inside b.
func split(b codec.Bounds, n int, vertical bool, pad int32) []codec.Bounds {
	out := make([]codec.Bounds, n)
	inner := b
	if b.Right-b.Left > 2*pad && b.Bottom-b.Top > 2*pad {
		inner = codec.Bounds{Left: b.Left + pad, Top: b.Top + pad, Right: b.Right - pad, Bottom: b.Bottom - pad}
	}
	lo, hi := inner.Top, inner.Bottom
	if !vertical {
		lo, hi = inner.Left, inner.Right
	}
	span := int64(hi - lo)
	for i := range out {
		a := lo + int32(span*int64(i)/int64(n))
		z := lo + int32(span*int64(i+1)/int64(n))
		if vertical {
			out[i] = codec.Bounds{Left: inner.Left, Top: a, Right: inner.Right, Bottom: z}
		} else {
			out[i] = codec.Bounds{Left: a, Top: inner.Top, Right: z, Bottom: inner.Bottom}
		}
	}
	return out
}

// shares cuts total into n shares of at least 1 each, each within a factor
// of about two of the mean.
func (g *snapGen) shares(total, n int) []int {
	out := make([]int, n)
	w := make([]int, n)
	sum := 0
	for i := range w {
		w[i] = 2 + g.r.IntN(3)
		sum += w[i]
	}
	left := total - n
	given := 0
	for i := range out {
		extra := left * w[i] / sum
		out[i] = 1 + extra
		given += extra
	}
	for i := 0; given < left; i = (i + 1) % n {
		out[i]++
		given++
	}
	return out
}

// appTree is the application window's tree of exactly n nodes: DecorView,
// a spine of layout containers, then an app bar and the content.
func (g *snapGen) appTree(b codec.Bounds, statusH int32, n int, typing bool) *codec.Node {
	root := g.node("com.android.internal.policy.DecorView", b, 0)
	n--
	// The spine: single-child wrappers, as fragments and layouts nest them.
	// Content below it takes at least 3 levels when it can, so the tree is
	// minAppDepth levels or more deep once it has nodes enough.
	spine := minAppDepth - 4 + g.r.IntN(7)
	spine = min(spine, n/8, maxAppDepth-8)
	chain := []*codec.Node{&root}
	inner := codec.Bounds{Left: b.Left, Top: b.Top + statusH, Right: b.Right, Bottom: b.Bottom}
	for i := 0; i < spine && n > 0; i++ {
		c := g.node(g.pick(spineClasses), inner, 0)
		if i == 1 {
			g.res(&c, g.str("android"), "content")
		} else if g.r.IntN(3) == 0 {
			g.res(&c, g.appPkg, g.pick([]string{"nav_host_fragment", "main_container", "fragment_container", "coordinator", "root_layout"}))
		}
		n--
		chain = append(chain, g.add(chain[len(chain)-1], c))
	}
	bottom := chain[len(chain)-1]
	depth := len(chain) // levels used so far
	if n == 0 {
		return &root
	}
	// An app bar of a few nodes on top, the content below.
	bar := min(n-1, 3+g.r.IntN(3))
	if n < 8 {
		bar = 0
	}
	parts := split(bottom.Bounds, 8, true, 0)
	if bar > 0 {
		ab := codec.Bounds{Left: parts[0].Left, Top: parts[0].Top, Right: parts[0].Right, Bottom: parts[0].Bottom}
		g.add(bottom, g.appBar(ab, bar, typing))
		n -= bar
	}
	content := codec.Bounds{Left: bottom.Bounds.Left, Top: parts[1].Top, Right: bottom.Bounds.Right, Bottom: bottom.Bounds.Bottom}
	if bar == 0 {
		content = bottom.Bounds
	}
	g.add(bottom, g.content(content, n, depth+1, true))
	return &root
}

// add appends c to p's children and returns a pointer to it. Pointers
// taken earlier into p.Children stay valid only while no later add grows
// the slice, so callers fill a node's subtree before adding siblings.
func (g *snapGen) add(p *codec.Node, c codec.Node) *codec.Node {
	p.Children = append(p.Children, c)
	return &p.Children[len(p.Children)-1]
}

// appBar is a toolbar of n nodes: a navigation button, a title and actions
// (a search field while typing).
func (g *snapGen) appBar(b codec.Bounds, n int, typing bool) codec.Node {
	bar := g.node("android.widget.FrameLayout", b, 0)
	g.res(&bar, g.appPkg, "toolbar")
	slots := split(b, n-1, false, b.Bottom/40)
	for i, s := range slots {
		var c codec.Node
		switch {
		case i == 0:
			c = g.node("android.widget.ImageButton", s, schema.NodeClickable|schema.NodeFocusable|schema.NodeEnabled)
			c.Desc = "Navigate up"
		case i == 1 && typing:
			c = g.node("android.widget.EditText", s, schema.NodeClickable|schema.NodeFocusable|schema.NodeFocused|schema.NodeEditable|schema.NodeEnabled)
			g.res(&c, g.appPkg, "search_src_text")
			c.Hint = g.pick(hints)
			c.Text = g.text()
		case i == 1:
			c = g.node("android.widget.TextView", s, schema.NodeEnabled)
			c.Text = g.text()
			g.res(&c, g.appPkg, "toolbar_title")
		default:
			c = g.node("android.widget.ImageButton", s, schema.NodeClickable|schema.NodeFocusable|schema.NodeEnabled|schema.NodeLongClickable)
			c.Desc = g.pick(descs)
		}
		g.add(&bar, c)
	}
	return bar
}

// content is a subtree of exactly n nodes at the given level: a leaf
// widget, an item (a card of widgets), a list of items, or a container of
// sections and carousels for the largest budgets.
func (g *snapGen) content(b codec.Bounds, n, level int, top bool) codec.Node {
	switch {
	case n == 1:
		return g.leaf(b)
	case level >= maxAppDepth-1:
		// One level left: everything else is a leaf of this container.
		c := g.node(g.pick(containerClasses), b, 0)
		for _, s := range split(b, n-1, true, 0) {
			g.add(&c, g.leaf(s))
		}
		return c
	case n <= 8:
		return g.item(b, n, level)
	case n <= 120 || top && n <= 400:
		return g.list(b, n, level, true)
	}
	// Sections: a vertical list whose rows are carousels or lists, or a
	// plain container of panes, each cut from the budget.
	if g.r.IntN(2) == 0 {
		return g.list(b, n, level, true)
	}
	c := g.node(g.pick(containerClasses), b, 0)
	k := 2 + g.r.IntN(3)
	rest := n - 1
	panes := split(b, k, g.r.IntN(3) > 0, 0)
	for i, share := range g.shares(rest, k) {
		g.add(&c, g.content(panes[i], share, level+1, false))
	}
	return c
}

// list is a scrolling list of n nodes in all: the list node and its items,
// with scroll semantics whose range runs past the items on screen.
func (g *snapGen) list(b codec.Bounds, n, level int, vertical bool) codec.Node {
	class := g.pick(listClasses)
	if !vertical {
		class = g.pick(carouselClasses)
	}
	l := g.node(class, b, schema.NodeScrollable|schema.NodeFocusable|schema.NodeEnabled)
	g.res(&l, g.appPkg, g.pick([]string{"recycler_view", "list", "feed", "results", "carousel"}))
	rest := n - 1
	// Items of 3 to 8 nodes; larger budgets make rows that hold carousels.
	per := 3 + g.r.IntN(6)
	if rest > 60 {
		per = max(rest/(6+g.r.IntN(10)), 8)
	}
	k := max(1, min(rest, rest/per))
	slots := split(b, k, vertical, 0)
	for i, share := range g.shares(rest, k) {
		switch {
		case share > 12 && vertical && level+3 < maxAppDepth && g.r.IntN(2) == 0:
			// A row holding a horizontal carousel, with its own header.
			row := g.node("android.widget.LinearLayout", slots[i], 0)
			g.res(&row, g.appPkg, "row")
			hdr, body := split(slots[i], 4, true, 0)[0], slots[i]
			body.Top = hdr.Bottom
			title := g.node("android.widget.TextView", hdr, schema.NodeEnabled|schema.NodeFocusable)
			title.Text = g.text()
			g.res(&title, g.appPkg, "header")
			g.add(&row, title)
			g.add(&row, g.list(body, share-2, level+2, false))
			g.add(&l, row)
		default:
			g.add(&l, g.content(slots[i], share, level+1, false))
		}
	}
	total := int64(k + g.r.IntN(4*k+20))
	first := int64(0)
	if total > int64(k) && g.r.IntN(3) > 0 {
		first = g.r.Int64N(total - int64(k) + 1)
	}
	s := &codec.Scroll{Axis: schema.ScrollVertical}
	if !vertical {
		s.Axis = schema.ScrollHorizontal
	}
	if class == "android.widget.ScrollView" || class == "androidx.core.widget.NestedScrollView" || class == "android.widget.HorizontalScrollView" {
		// Scroll views report percent, not items.
		pos := first * 100 / total
		s.Range = codec.Some(codec.ScrollRange{Unit: schema.RangePercent, Lo: 0, Hi: 100})
		s.Position = codec.Some(codec.ScrollPosition{Lo: pos, Hi: pos})
	} else {
		s.Range = codec.Some(codec.ScrollRange{Unit: schema.RangeItems, Lo: 0, Hi: total - 1})
		s.Position = codec.Some(codec.ScrollPosition{Lo: first, Hi: first + int64(k) - 1})
	}
	if first > 0 {
		s.Flags |= schema.ScrollBack
	}
	if first+int64(k) < total {
		s.Flags |= schema.ScrollForward
	}
	l.Scroll = s
	return l
}

// item is a card or row of exactly n nodes (n >= 2): a clickable
// container of an image, a title, a subtitle and controls, with a nested
// group when it is large.
func (g *snapGen) item(b codec.Bounds, n, level int) codec.Node {
	it := g.node(g.pick(containerClasses), b, schema.NodeClickable|schema.NodeFocusable|schema.NodeEnabled|schema.NodeLongClickable)
	if g.r.IntN(3) == 0 {
		it.Flags |= schema.NodeSelected
	}
	g.res(&it, g.appPkg, g.pick([]string{"item_root", "card", "row", "container"}))
	rest := n - 1
	group := 0
	if rest >= 5 && level < maxAppDepth-2 {
		group = 2 + g.r.IntN(rest-3)
	}
	k := rest - group
	if group > 0 {
		k++
	}
	slots := split(b, k, g.r.IntN(4) == 0, b.Bottom/200+2)
	for i := 0; i < k; i++ {
		if group > 0 && i == k-1 {
			gr := g.node("android.widget.LinearLayout", slots[i], 0)
			for _, s := range split(slots[i], group-1, false, 0) {
				g.add(&gr, g.leaf(s))
			}
			g.add(&it, gr)
			continue
		}
		var c codec.Node
		switch i {
		case 0:
			c = g.node("android.widget.ImageView", slots[i], 0)
			g.res(&c, g.appPkg, g.pick([]string{"icon", "avatar", "thumbnail"}))
			if g.r.IntN(2) == 0 {
				c.Desc = g.pick(descs)
			}
		case 1:
			c = g.node("android.widget.TextView", slots[i], schema.NodeEnabled)
			c.Text = g.text()
			g.res(&c, g.appPkg, "title")
		case 2:
			c = g.node("android.widget.TextView", slots[i], schema.NodeEnabled)
			c.Text = g.text() + " " + g.text()
			g.res(&c, g.appPkg, "subtitle")
		default:
			c = g.leaf(slots[i])
		}
		g.add(&it, c)
	}
	return it
}

// leaf is one widget from the pool, with what that widget carries.
func (g *snapGen) leaf(b codec.Bounds) codec.Node {
	class := g.pick(leafClasses)
	n := g.node(class, b, schema.NodeEnabled)
	switch class {
	case "android.widget.TextView", "com.google.android.material.chip.Chip":
		n.Text = g.text()
		if class != "android.widget.TextView" {
			n.Flags |= schema.NodeClickable | schema.NodeCheckable | schema.NodeFocusable
		}
	case "android.widget.ImageView":
		if g.r.IntN(2) == 0 {
			n.Desc = g.pick(descs)
		}
	case "android.widget.Button", "android.widget.ImageButton":
		n.Flags |= schema.NodeClickable | schema.NodeFocusable
		if class == "android.widget.Button" {
			n.Text = g.text()
		} else {
			n.Desc = g.pick(descs)
		}
	case "android.widget.CheckBox", "android.widget.Switch", "android.widget.RadioButton":
		n.Flags |= schema.NodeClickable | schema.NodeFocusable | schema.NodeCheckable
		on := g.r.IntN(2) == 0
		if on {
			n.Flags |= schema.NodeChecked
		}
		n.Text = g.text()
		if class == "android.widget.Switch" {
			n.State = map[bool]string{true: "On", false: "Off"}[on]
		} else if g.r.IntN(2) == 0 {
			n.State = g.pick(states)
		}
	case "android.widget.EditText":
		n.Flags |= schema.NodeClickable | schema.NodeFocusable | schema.NodeEditable | schema.NodeLongClickable
		n.Hint = g.pick(hints)
		if g.r.IntN(4) == 0 {
			n.Flags |= schema.NodePassword
			n.Text = "••••••••"
		} else if g.r.IntN(2) == 0 {
			n.Text = g.text()
		}
	case "android.widget.ProgressBar":
		n.State = g.pick(states)
	}
	if g.r.IntN(3) == 0 {
		g.res(&n, g.appPkg, g.pick(resNames))
	}
	return n
}

// dialogTree is a permission dialog of exactly n nodes (n >= 4).
func (g *snapGen) dialogTree(b codec.Bounds, n int, app string) *codec.Node {
	pc := g.str("com.google.android.permissioncontroller")
	root := g.node("android.widget.FrameLayout", b, 0)
	panel := g.node("android.widget.LinearLayout", b, 0)
	g.res(&panel, pc, "grant_dialog")
	rows := split(b, n-2, true, b.Bottom/100)
	for i, s := range rows {
		var c codec.Node
		switch {
		case i == 0:
			c = g.node("android.widget.ImageView", s, 0)
			g.res(&c, pc, "permission_icon")
		case i == 1:
			c = g.node("android.widget.TextView", s, schema.NodeEnabled|schema.NodeFocusable)
			c.Text = "Allow " + app + " to send you notifications?"
			g.res(&c, pc, "permission_message")
		default:
			c = g.node("android.widget.Button", s, schema.NodeEnabled|schema.NodeClickable|schema.NodeFocusable)
			c.Text = []string{"Allow", "Don’t allow", "Nur dieses Mal", "Ask every time", "Plus tard", "許可しない"}[(i-2)%6]
			g.res(&c, pc, "permission_allow_button")
		}
		g.add(&panel, c)
	}
	g.add(&root, panel)
	return &root
}

// keyboardTree is an input method of exactly n nodes (n >= 4): rows of
// keys.
func (g *snapGen) keyboardTree(b codec.Bounds, n int) *codec.Node {
	root := g.node("android.widget.FrameLayout", b, 0)
	kb := g.node("android.view.View", b, schema.NodeEnabled)
	g.res(&kb, g.str("com.google.android.inputmethod.latin"), "keyboard_view")
	keys := n - 2
	rowsN := min(4, keys)
	const letters = "qwertyuiopasdfghjklzxcvbnm,.éàü?!"
	rows := split(b, rowsN, true, 0)
	k := 0
	for ri, share := range g.shares(keys, rowsN) {
		for _, s := range split(rows[ri], share, false, 2) {
			key := g.node("android.view.View", s, schema.NodeEnabled|schema.NodeClickable|schema.NodeLongClickable)
			key.Desc = string([]rune(letters)[k%len([]rune(letters))])
			k++
			g.add(&kb, key)
		}
	}
	g.add(&root, kb)
	return &root
}

// barTree is a system bar of exactly n nodes: a container and its icons.
func (g *snapGen) barTree(b codec.Bounds, n int, pkg uint32, names []string) *codec.Node {
	root := g.node("android.widget.FrameLayout", b, 0)
	g.res(&root, pkg, "bar_container")
	for i, s := range split(b, n-1, false, 0) {
		c := g.node("android.widget.ImageView", s, schema.NodeEnabled)
		name := names[i%len(names)]
		g.res(&c, pkg, name)
		switch name {
		case "clock":
			c.Class = g.str("android.widget.TextView")
			c.Text = "12:45"
		case "battery":
			c.Desc = "Battery 87 percent."
		case "back", "home", "recent_apps":
			c.Class = g.str("android.widget.ImageButton")
			c.Flags |= schema.NodeClickable | schema.NodeLongClickable
			c.Desc = map[string]string{"back": "Back", "home": "Home", "recent_apps": "Overview"}[name]
		default:
			c.Desc = g.pick([]string{"Wi‑Fi signal full.", "Phone two bars.", "Notification: Mail", "Do not disturb"})
		}
		g.add(&root, c)
	}
	return &root
}

// Depth returns the number of levels of the deepest window tree of s (a
// root alone is 1, no tree is 0).
func Depth(s *codec.Snapshot) int {
	type item struct {
		n     *codec.Node
		level int
	}
	deepest := 0
	for i := range s.Windows {
		if s.Windows[i].Root == nil {
			continue
		}
		stack := []item{{s.Windows[i].Root, 1}}
		for len(stack) > 0 {
			it := stack[len(stack)-1]
			stack = stack[:len(stack)-1]
			deepest = max(deepest, it.level)
			for j := range it.n.Children {
				stack = append(stack, item{&it.n.Children[j], it.level + 1})
			}
		}
	}
	return deepest
}

// CountNodes returns the number of nodes in all of s's window trees.
func CountNodes(s *codec.Snapshot) int {
	n := 0
	var stack []*codec.Node
	for i := range s.Windows {
		if s.Windows[i].Root != nil {
			stack = append(stack, s.Windows[i].Root)
		}
	}
	for len(stack) > 0 {
		top := stack[len(stack)-1]
		stack = stack[:len(stack)-1]
		n++
		for j := range top.Children {
			stack = append(stack, &top.Children[j])
		}
	}
	return n
}

// BoundsResult returns the bounds of n nodes, the same for the same seed:
// ascending node ids with gaps, and on-screen rectangles of a 1080x2400
// display, as a bounds request for the rows of a list would get them.
func BoundsResult(n int, seed int64) *codec.BoundsResult {
	r := newRand(seed, 2)
	out := &codec.BoundsResult{Nodes: make([]codec.NodeBounds, max(n, 0))}
	id := uint32(1 + r.IntN(200))
	for i := range out.Nodes {
		id += uint32(1 + r.IntN(12))
		l := int32(r.IntN(900))
		t := int32(r.IntN(2300))
		out.Nodes[i] = codec.NodeBounds{Node: id, Bounds: codec.Bounds{Left: l, Top: t, Right: l + 16 + int32(r.IntN(1080-int(l)-15)), Bottom: t + 8 + int32(r.IntN(2400-int(t)-7))}}
	}
	return out
}

// ScreenshotPNG returns a real, opaque PNG image of width x height pixels,
// the same for the same seed: seeded noise, so that it does not compress
// and its size is about 3 bytes a pixel, the worst case of a photo-heavy
// screen.
func ScreenshotPNG(width, height int, seed int64) []byte {
	r := newRand(seed, 3)
	img := image.NewNRGBA(image.Rect(0, 0, width, height))
	for y := 0; y < height; y++ {
		for x := 0; x < width; x++ {
			v := r.Uint32()
			img.Pix[y*img.Stride+x*4+0] = byte(v)
			img.Pix[y*img.Stride+x*4+1] = byte(v >> 8)
			img.Pix[y*img.Stride+x*4+2] = byte(v >> 16)
			img.Pix[y*img.Stride+x*4+3] = 0xff
		}
	}
	var buf bytes.Buffer
	enc := png.Encoder{CompressionLevel: png.BestSpeed}
	if err := enc.Encode(&buf, img); err != nil {
		panic(err)
	}
	return buf.Bytes()
}

// PadPNG returns p grown to exactly size bytes by an ancillary, private
// chunk ("wbPd") inserted before IEND, which PNG readers skip. p must be a
// PNG ending in IEND and size at least len(p)+12.
func PadPNG(p []byte, size int) []byte {
	const iend = 12 // length, type, CRC of an empty IEND chunk
	data := size - len(p) - 12
	if data < 0 || len(p) < 8+iend {
		panic("support: PadPNG: no room for the padding chunk")
	}
	out := make([]byte, 0, size)
	out = append(out, p[:len(p)-iend]...)
	out = binary.BigEndian.AppendUint32(out, uint32(data))
	start := len(out)
	out = append(out, "wbPd"...)
	out = append(out, make([]byte, data)...)
	out = binary.BigEndian.AppendUint32(out, crc32.ChecksumIEEE(out[start:]))
	return append(out, p[len(p)-iend:]...)
}

// ScreenshotResponse returns a response to a screenshot request whose
// frame (header and payload) is exactly frameLen bytes, the same for the
// same seed: a real PNG of seeded noise, the tallest that fits, padded to
// the exact length. frameLen must be at least 8 KiB.
func ScreenshotResponse(frameLen int, seed int64) *codec.Response {
	const width = 360
	res := &codec.ScreenshotResult{Width: width, Format: schema.FormatPNG}
	m := &codec.Response{ID: 14, Method: codec.MethodScreenshot, Result: res}
	// frameOverhead is the frame's length less the image's, for the
	// height and an image length of the same size class as frameLen.
	frameOverhead := func() int {
		res.Image = make([]byte, frameLen)
		f, err := codec.AppendFrame(nil, m, schema.DefaultMaxFrame)
		if err != nil {
			panic(err)
		}
		return len(f) - frameLen
	}
	// Noise costs 3 bytes a pixel and a filter byte a row, plus zlib's
	// few bytes a block; start a little below and step down until the
	// image leaves room for the padding chunk.
	for h := (frameLen - 1024) / (3*width + 1); h > 0; h-- {
		res.Height = uint32(h)
		target := frameLen - frameOverhead()
		img := ScreenshotPNG(width, h, seed)
		if len(img)+12 > target {
			continue
		}
		res.Image = PadPNG(img, target)
		if f, err := codec.AppendFrame(nil, m, schema.DefaultMaxFrame); err != nil || len(f) != frameLen {
			panic("support: ScreenshotResponse: the frame misses its length")
		}
		return m
	}
	panic("support: ScreenshotResponse: frame length too small")
}
