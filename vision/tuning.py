"""The tuned numbers of reading a board and of calibrating for it, each with why it holds.

One place for every threshold, tolerance and search range that decides what a frame reads
(vision.features, vision.reader and its stages, vision.cover) and what calibration accepts
and learns (vision.calibration and its stages). Units: "log units" are natural logs of grey
levels (so 0.1 is about 10 % brighter); "feature units" are the classifier's distances on
light-corrected log colour (vision.features); "noise widths" are this frame's own measured
sensor noise; millimetres are on the board plane. Array layouts (how many points a patch has,
where they lie) are not tuning and stay in vision.sampling; the light model's log offset and
clip levels are the camera's and stay in vision.light.
"""
from __future__ import annotations

import numpy as np

# --- the colour classifier (vision.features) ------------------------------------------------
# Shadows and flicker change a field's brightness far more than its hue: brightness counts half.
BRIGHTNESS_WEIGHT = 0.5
# Royal pieces are read from the more colourful half of their patch (the rank mark is
# colourless); a dark pixel's noise is a large log swing, so colourfulness is ranked on
# log(value + this) and dark noise does not look colourful.
MARK_RANK_OFFSET = 24.0
# A field is read as a class only if it is this close (feature units, about log colour) ...
MAX_DISTANCE = 0.42
# ... and clearly closer to it than to any other class.
MIN_MARGIN = 0.12
# ... and than the class that may stand there next nearest by this many times the noise of that lead
# in this frame (vision.colour_decision `_within_noise`): in dim light at high gain a dark piece is a
# few grey levels, and two seats' colours may lie within that noise of it. Then it is unknown. The
# noise taken is a cautious one (it keeps part of the patch's print, vision.own_colour `patch_spread`):
# on the dim 6-segment board a purple pawn read as green led by 0.34 of it, while of ~640 right reads
# of coloured pieces there the lowest led by 0.42 and the 5th percentile by 0.94; a well lit frame's
# noise is far below the fixed margins, and the rule leaves its fields alone.
COLOUR_MARGIN_SIGMAS = 0.4
# A colour the light has bent further (a dark channel of a strong colour is noisy in log
# units: the blue of a yellow piece in dim light) is still read if it is far nearer to one
# class than to any other.
CLEAR_DISTANCE = 0.65
CLEAR_MARGIN = 0.75
# Through JPEG (colour at half resolution) a saturated piece's dark channel takes in the board
# around it, and in log units it moves far: the red of a small pawn on a cream field reads
# redder than in its tinted kennel. Such a reading is still far nearer its own class than any
# other; a piece half seen with half board lies between the two classes and is not read.
FAR_DISTANCE = 1.4
FAR_RATIO = 2.4
# A pawn leaning with the camera's tilt, a lamp's highlight or strong JPEG bends a piece's
# colour far from its class (up to about 0.7) while every other class stays far: such a piece
# is read when each other class is at least BENT_RATIO times as far. A real field comes no
# nearer than about 0.64 times its true class's distance to any other class, so a wrong read
# would need a field more than twice as near a wrong class as pieces ever come. Not for the
# empty field (its colour alone never bends that far without a piece) nor in a lit ring (there
# a red pawn in green light is as near yellow: LIT_MIN_MARGIN).
BENT_DISTANCE = 0.8
BENT_RATIO = 1.5
# A piece's sampled patch also takes in the field under and around it: JPEG keeps colour at
# half resolution, and defocus and the pawn's rim add more. For a saturated colour that moves
# its dark channel far in log units: the blue of a yellow pawn is a few grey levels in its
# yellow kennel (where calibration learned it) and several times that on the cream track; a
# red pawn inside a lit green ring loses blue. So a piece's look is its learned colour with
# this share at most of its colour (not brightness: a dark piece mixed with a pale field must
# not pass for a shadow) taken from the field around it (the best share is searched).
MIX_SHARES = (0.0, 0.05, 0.1, 0.15, 0.2, 0.25)
MIX_MIN_CHROMA = 0.6  # only saturated colours are mixed (black, white and the dog are not)
# A lit LED ring shines on the piece a little and on the field around it much (linear in the
# camera's values, of its nominal colour at full scale, relative to the bare board): searched
# up to this much. A piece's own light is kept small: more makes a blue piece in orange
# light look like the cream field.
LED_GAINS = (0.0, 0.05, 0.1, 0.15)
# A lacquered piece shows the lamp's highlight, more of it where the lamp is reflected towards
# the camera: a red pawn learned in a kennel under the lamp reads far redder and darker on the
# track. A class's look may have this share of the board's colour taken out of it (or added).
HIGHLIGHT_SHARES = (0.0, 0.1, 0.2)
# The ring's light on the field around a piece, of the LED's nominal colour: anything from
# none (the piece's own shadow) to the full ring.
LED_AROUND_GAINS = (0.0, 0.25, 0.5, 0.75, 1.0)
# Inside a lit ring even that model misses at times (a red pawn in green light looks much like
# a yellow one, and royal pieces are read from a patch's most colourful pixels, which the ring
# colours most): there a class is read only this far clearer than any other.
LIT_MIN_MARGIN = 0.2
# A royal piece in its own lit ring is read again from the pixels most colourful but least
# tinted by the ring's light (their colourfulness less this many times the tint; this share of
# the patch: a small piece in the picture covers little more than a third of it).
LIT_TINT_WEIGHT = 2.0
LIT_KEEP = 0.33
# How much of its own ring's light a piece in it may show at most (LED_GAINS is what is
# usual): a reading in a lit ring stands only if no other class, lit up to this much, comes
# as near (a black piece in red light looks just like a red one).
LIT_GAINS_AT_MOST = (0.0, 0.1, 0.2, 0.35, 0.5, 0.75, 1.0)
# A dark piece (black, the black dog) in a coloured ring shows the ring's colour on its lacquer
# and lower body at whatever brightness its gloss and the ring give it: its chroma runs from its
# own towards the LED's as the light grows, its brightness anything. A coloured class whose
# chroma lies within LIT_MIN_MARGIN of that path is not read in that ring: a dark piece there
# looks as much like it as the margin a lit ring asks for. Green lies close to that path in the
# green ring (a black dog in it can look green while the usual light model keeps it apart);
# yellow in the amber ring lies far enough off it that the usual rules tell them apart, which
# matters because a yellow piece that may move is lit amber on every turn of its seat.
DARK_LIT_REACH = LIT_MIN_MARGIN
DARK_LIT_GAINS = np.concatenate([[0.0], np.geomspace(0.01, 100.0, 120)])  # the path: no light to 100x the board
# Distances are taken on log(colour + SOFT_FLOOR), colour relative to the bare board's
# brightness: a channel far darker than the board (the blue of a yellow piece; every channel
# of a black one) is a few grey levels, and its log swings with noise, JPEG and light (in its
# kennel and on the track it differs by a factor of three); above the floor it weighs little.
SOFT_FLOOR = 0.1
MIN_LINEAR = 0.02  # of the bare board's brightness: a mixed look's channel is never darker (log stays finite)

# --- pieces in their own lit ring (vision.colour_decision) ----------------------------------
# A royal piece still unknown in its own lit ring: a red piece in a green ring is nearest
# yellow in the usual reading (its patch's most colourful pixels are the ring's light on it),
# while read again without the ring's tint it is plainly red. Where the tint-free reading names
# another class than the usual one, a coloured class (learned chroma at least
# LIT_COLOURED_CHROMA: the royal colours lie well above it, white and black well below) is read
# if it is LIT_AGAIN_MARGIN nearer than any other class there (and than any other piece in the
# ring's full light), no colourless class (empty, white, black) in the ring's full light comes
# within LIT_DARK_MARGIN of it in the usual reading (a black piece takes a coloured ring's
# colour either way), and the usual reading has it at most LIT_USUAL_BEHIND behind its nearest
# piece. Where both readings agree the tint may be in both (red pieces in green rings read
# yellow without the tint too): left to the usual rule. The bars are set so that a wrong
# tint-free reading fails two of them at once, with room to spare on each.
LIT_COLOURED_CHROMA = 0.9
LIT_AGAIN_MARGIN = 0.15
LIT_DARK_MARGIN = 0.4
LIT_USUAL_BEHIND = 0.1
# Log units below the board: black pieces and the dog lie 1.3-2.3 below it, coloured pieces
# 0.9-2.0 (but coloured), white 0-0.3. A colourless class this much darker is a dark piece,
# which takes a lit ring's colour.
DARK_BELOW_BOARD = 1.0
# A coloured piece read the usual way in its own lit ring stands only if its tint-free reading
# puts no other class nearer than it (by more than LIT_AGREE): in the table's green ring a red
# piece's ring-lit half looks yellow and a black piece's looks green, but without the tint the
# right class stays nearest. Zero: any other class nearer without the tint is doubt enough.
LIT_AGREE = 0.0

# --- pale pieces (white on cream) told by the field's pattern (vision.pale) ------------------
# A field's pattern distance from its empty look is measured in units of the median over the
# fields that look empty by colour (this frame's noise), with floors for a clean picture: below
# STRUCTURE_LOW of them a field is empty, above STRUCTURE_HIGH a piece, between unknown.
STRUCTURE_LOW = 2.3
STRUCTURE_HIGH = 2.6
STRUCTURE_FLOOR_LOW = 0.04
STRUCTURE_FLOOR_HIGH = 0.05
NEIGHBOUR_SHADE_MM = 30.0  # pale pieces: a standing piece this close may shade or overhang a field
NEIGHBOUR_SHADE_BAR = 3.0  # ... or its pattern differs this many times past the piece threshold
# A real pawn's hard shadow and its leaning head reach into a neighbouring field from the
# pawn's side, up to about this far from the pawn's centre (a 25 mm pawn under a lamp, 25 deg
# tilt): beside a standing piece a field's pattern is judged on its points farther away.
NEIGHBOUR_KEEP_MM = 20.0
NEIGHBOUR_MIN_KEPT = 0.3  # of a field's pattern points, left after leaving out the neighbours' reach
# Judged on fewer points, and a neighbour's light and shadow still reach a little farther (two
# lamps, a far corner): beside a standing piece a field is empty below the usual piece threshold,
# a pale piece only this many times above it (unknown between).
NEIGHBOUR_PIECE_BAR = 1.5
NEIGHBOUR_FAR_PAST = 1.6  # a whole pattern this many times past the piece bar: more than a neighbour's shadow
NEIGHBOUR_COLOUR_EMPTY = 1.3  # ... unless a pale seat's colour is this many times farther than the empty field's
# A neighbour's shadow keeps the field's hue: where the colour leans to a pale seat's rather than the
# empty field's and the whole pattern is past the piece bar times this, no shadow explains it, and the
# kept points alone never say "empty" (a white pawn beside a standing one in dim light, too little of
# its dark print kept to weigh, kept points that differ from the empty look by less than the bar);
# where enough kept dark print is hardly brightened (DARK_PRINT_LIFT) and the colour is not plainly
# pale (PALE_COLOUR_CLEAR), that print says no pale piece covers the field, and they may
NEIGHBOUR_PALE_PAST = 1.0
PALE_COLOUR_CLEAR = 0.5  # a pale seat's colour at most this share of the empty field's distance: plainly pale
# Where a field is printed far darker than a pale piece (a dark rim, DARK_PRINT log units below
# the pale seat's brightness), a pale piece standing on the field brightens the print it covers;
# a neighbour's shadow only darkens it. Beside a standing piece, a field whose colour leans to its
# empty look and whose kept dark print (at least DARK_PRINT_MIN_POINTS points, enough to average
# the noise) is brightened by no more than DARK_PRINT_LIFT on average holds no pale piece: what
# its pattern still differs by is judged with the shadow taken out point by point. A white piece
# on the rim lifts it by about twice that or more, a bare field by well under half of it. A white
# piece leaning off its rim, or smaller than it, lifts it little, but its colour then leans
# plainly to white (a pale seat's distance under half the empty field's): kept.
DARK_PRINT = 0.7
DARK_PRINT_MIN_POINTS = 12
DARK_PRINT_LIFT = 0.1
# ... and one whose kept dark print is brightened by more than DARK_PRINT_PIECE_LIFT is never read
# empty there (a shadow only darkens print); brightened by more than DARK_PRINT_PLAIN_LIFT, a pale
# piece needs its kept points past the usual piece bar only. A bare field's lift stays within about
# 0.12 of zero in a dim, noisy frame (its dark print is a few grey levels); a white piece on its rim
# lifts it by 0.15-0.5, one leaning off its rim less (then judged as before).
DARK_PRINT_PIECE_LIFT = 0.13
DARK_PRINT_PLAIN_LIFT = 0.2

# --- pale pieces near lit rings (vision.lit_pattern, vision.pale) ----------------------------
PALE_LIT_CLEARANCE_MM = 30.0  # LED glow disturbs a field's pattern this far from a lit field
# A lit ring's light, thrown back by pale pieces standing around it, still unsettles a pale
# piece's pattern beyond that (a white kennel piece almost 50 mm from a lit start field on the
# 6-segment board). One frame with the LEDs off reads such fields, and costs only that frame,
# so the service asks for it for every unknown field within this reach of a lit one.
BLANK_REACH_MM = 60.0
GLOW_MIN_KEPT = 0.25  # of a field's pattern points, left after leaving out a lit neighbour's reach
# A field whose own ring is lit is judged patch by patch against its learned lit look: a
# z-score below LIT_Z_EMPTY is the empty lit field, above LIT_Z_PIECE a pale piece, between
# unknown. In clean light an empty field lies a few noise widths off its lit look and a white
# piece a dozen or more; harsh light, and the ring's light thrown about by the pieces around,
# lift empty fields to 7-8 and bring the dimmest white pieces down to about 9: the gap between
# the two thresholds is left unknown, and a frame with the LEDs blanked reads it.
LIT_Z_EMPTY = 3.0
LIT_Z_PIECE = 10.0
# Between the two an empty field is still read where its colour says "empty" plainly as well
# (the pale seat's colour LIT_EMPTY_COLOUR times as far): a strongly coloured ring on a
# textured (linen) board lifts an empty field's z well past LIT_Z_EMPTY while leaving its colour
# several times nearer the empty field than white. A white piece whose colour looks that plain
# in the ring's light stands far above LIT_Z_EMPTY_PLAIN.
LIT_Z_EMPTY_PLAIN = 8.0
LIT_EMPTY_COLOUR = 2.5
# White pieces in their own lit ring are mostly at most about as far from the pale seat's colour
# as from the empty field's (the ring lights both alike); empty lit fields lie 1.5 to 20 times
# as far from white. Beyond this ratio a pale piece is not read in its own ring (unknown).
LIT_PALE_COLOUR = 1.25
GLOW_MAX_GAIN_CHANGE = 0.25  # judged only if the ring shines about as at calibration (a pulsing LED)
GLOW_JUDGED = 0.2  # points a ring adds more light to than this are not judged (linear units, of the
                   # bare board's brightness: a lit look clips, and its edge moves with the camera)
LIT_CELLS = 9  # patches judged: the centre disc and the two inner rings (the outer one is where a
               # neighbour's piece, its shadow and its lit ring reach)
LIT_CELL_POINTS = 4  # judged points a patch needs (per colour channel)
LIT_MIN_PATCHES = 6  # judged (patch, channel) pairs a field needs
LIT_PATCH_CAP = 7.0  # noise widths one patch may count for at most (`patch_z`)
LIT_MAX_SHIFT_PX = 0.8  # how far the picture may be off the markers' placing of it (`align`)
LIT_MIN_QUIET = 20  # fields without LED light to measure the noise on
LIT_QUIET_SAMPLE = 60  # at most about this many of them
LIT_NOISE_FLOOR = 0.8  # grey levels: no patch mean is surer (a clean picture; the lit look is learned)

# --- following the camera (vision.tracking) and the disc (vision.reader) --------------------
TRACK_MARGIN_PX = 14  # how far the picture may shift between frames and still be followed
TRACK_MIN_SCORE = 0.55  # template match below this: the marker is covered (a hand) or gone
RETRACK_PX = 0.35  # re-index the samples when the picture moved more than this
MOVED_NOTICE_PX = 3.0  # a drift this large since calibration is worth telling the user
DISC_MAX_ERROR = 0.45  # the disc art's mean colour error at the best quarter turn, at most
DISC_MIN_RATIO = 1.3  # ... and the second best this many times worse: else the orientation is unclear

# --- noticing a cover (vision.cover) ---------------------------------------------------------
# A bare-board grid point is "foreign" (a hand, an arm, a shadow) when the smooth light
# model misses it by far more than this frame's own noise: darker, or another hue. The
# noise is measured on every frame (robust spread of all grid residuals, most of which are
# bare board), so harsh light raises the bar and a clean picture lowers it. A point is
# judged alone and, less strictly, as the mean of itself and its lattice neighbours: a pale
# hand differs from the board by only ~3 noise widths per point in harsh light, but it
# covers dozens of neighbouring points.
COVER_Z_POINT = 7.0
COVER_Z_AREA = 6.0
COVER_Z_BRIGHT = 12.0  # brighter than the model: glare and LED light do this too, so less trusted
COVER_CLIP = 4.0  # noise widths one point counts for at most in its neighbourhood's mean
NOISE_STRIDE = 3  # every 3rd grid point is plenty to measure the frame's noise
COVER_MIN_NEIGHBOURS = 5  # area test only where a point has this many grid points around it (itself included)
NOISE_FLOOR_L = 0.004  # log units: never trust a spread below this (a perfectly clean picture)
NOISE_FLOOR_C = 0.006
# The neighbourhood means' spread is never trusted below this: JPEG/MJPEG (8x8 blocks, colour
# at half resolution) makes neighbours' errors alike, so means of 9 points are not 3x quieter,
# and a light model's smooth misfit of a per cent or two must not pass for a hand.
AREA_FLOOR_L = 0.003
AREA_FLOOR_C = 0.0045
# A hand or an arm is one clump of foreign points: every point within COVER_CLUMP_MM of
# another. The smallest hand (one just reaching over the edge, a pale one in bright light)
# makes a clump of over 20 points (12 mm apart); what JPEG blocks and a pawn's hard shadow in
# window light leave is a few scattered points, clumps of at most about 6.
COVER_MIN_POINTS = 12
COVER_CLUMP_MM = 30.0
SHADOW_REACH_MM = 48.0  # a standing piece's cast shadow reaches this far from its field's centre (low lamp)
SHADOW_MAX_HUE_Z = 3.5  # noise widths of hue a shadow may show (a hand's skin shows more)
LIT_CLEARANCE_MM = 34.0  # LED glow reaches this far around a lit field
COVER_NEAR_MM = 30.0  # fields this close to a foreign point are reported as covered

# --- calibrating (vision.calibration and its stages) -----------------------------------------
# Bare board must look flat in the empty frame this close around a grid point (pixels), so
# that a wobbling camera still samples the same flat print.
GRID_FLAT_RADIUS_PX = 5
GRID_FLAT_MAX_GRADIENT = 6.0  # grey levels per pixel (Sobel / 4) after a light blur: printed edges are steeper
MIN_GRID_POINTS = 60  # a cubic light model has 10 terms per channel: several points per term
TEMPLATE_SCALE = 1.5  # marker template side, in marker sides (includes the white quiet zone)
GLARE_WHITE = 250  # grey level: the camera clipped
GLARE_SHARE = 0.2  # of a missing marker's area clipped: glare hides it
# The black dog, if it is not in the start frame: a dark, colourless piece.
DEFAULT_DOG = (-1.9, 0.0, 0.0)
# A seat's colour this near its kennel's empty look is told by the pattern, not the colour: the
# reader's reach for a class. A white piece under a lamp's highlight learns a colour close to
# its kennel's empty look, and a track field's empty look may lie nearer still; coloured and
# black seats stay far beyond it.
PALE_SEAT_DISTANCE = MAX_DISTANCE
# Heights (mm above the board) at which a standing piece's body may be sampled; calibration
# keeps the one at which the start picture's pieces look least like their empty fields:
# sampled where the body is, a piece's colour is not mixed with the board's (a real pawn: its
# head, ~15-20 mm; a flat printed token: 0).
SAMPLE_HEIGHTS_MM = (0.0, 4.0, 8.0, 12.0, 16.0)
SAMPLE_HEIGHT_GAIN = 0.9  # each higher sample must set pieces apart from empty fields this much better

# --- learning the LED glow (vision.glow_learning) --------------------------------------------
GLOW_GROUP_SPACING_MM = 60.0  # rings lit together at calibration stand this far apart: no glow overlaps
GLOW_FAR_MM = 60.0  # beyond this, a field's pattern change is noise (measures it)
GLOW_MIN_DELTA = 0.02  # log units: a pattern change smaller than this is not glow
GLOW_MAX_REACH_MM = 40.0  # the measured reach is capped: farther pattern changes are the camera's wobble, not glow
GLOW_MODEL_MAX = 0.2  # a lit look is fitted (denoised) where the glow adds less light than this (linear units)
GLOW_RINGED = 0.25  # of the upper-quartile glow: fields glowing less had no ring lit (or none at all)
GLOW_RIDGE = 1e-3  # keeps the fit of a channel the glow hardly reaches near zero
GLOW_MODEL_TRUST = 3.0  # a fitted lit look is used where the picture's patches stray from it by no more than noise
                        # (mean square in noise widths)
GLOW_MIN_QUIET_PICTURES = 3  # pictures of a field needed to tell its noise

# --- seat-coloured fields in dim light (vision.own_colour) -----------------------------------
# A patch's neighbouring pixels are alike (demosaicking, JPEG's 8x8 blocks and half-resolution
# colour, defocus): about this many pixels make one independent sample of the noise.
OWN_CORRELATED = 3.0
# A channel's spread is never taken below one grey level: 8-bit values are whole numbers, and a
# flat dark patch shows a spread of 0 that is not a noise of 0.
OWN_MIN_GREY = 1.0
# The log colour's error that no noise estimate sees: the light model's misfit at a field and
# calibration's own pictures' noise (a few per cent).
OWN_FLOOR = 0.03
# A piece is read at t >= 0.5 + margin and an empty field at t <= 0.5 - margin (t: the share of
# the way from the field's empty look to its seat's piece), the margin at least this ...
OWN_MARGIN = 0.12
# ... and this many sigma_t: an empty hole's t reaches ~2 sigma_t with a neighbour's shadow or
# sheen on it, a piece's comes down to 1 - 1.5 sigma_t where its paint is worn by its shading.
OWN_MARGIN_SIGMAS = 1.0
# Beyond this sigma_t the empty hole and the piece lie within two noise widths of the halfway
# mark each: no margin leaves both readable, the field is unknown and the page asks for light.
OWN_MAX_SIGMA = 0.25
# A seat whose pieces differ from its own fields by less than this in every channel (log
# units: white pieces on a cream board's whitish kennel) is told by its pattern alone (vision.pale).
OWN_MIN_CONTRAST = 0.2
# Below that, down to this, the colour still tells a piece from its empty hole where the frame is
# quiet, but a piece's paint and its hole's differ by little more than the piece's own shading and
# sheen: the pattern decides (vision.pale) and the colour only vetoes a reading it plainly
# contradicts (an empty hole whose pattern the gain noise lifted past the piece bar). Below this,
# the error no noise estimate sees (OWN_FLOOR) alone puts sigma_t near or past OWN_MAX_SIGMA.
OWN_VETO_CONTRAST = 0.1
# ... but a pattern that says "empty" far below its empty bar (this share of it: a pale piece on
# those fields lifts it past 1.4 times the bar) is not vetoed: there the colour's t, at a contrast
# near OWN_VETO_CONTRAST, is the field's own bias and noise (an empty white kennel hole on the
# royal board's wide patch came to t 0.0-1.1 from frame to frame)
OWN_VETO_PLAIN_EMPTY = 0.5
# A pale seat's piece on a field whose empty look lies this far from the seat's colour (norm, log
# units: a white peg over a dark drilled hole) is told by its colour there: a pale piece's look
# moves by up to about 0.3 with a lamp's highlight and the field around it (white on cream, learned
# in its kennel, against the same piece on the track), so at twice that a piece's t stays above the
# halfway mark. White on a cream board's track lies well below it and is left to the pattern.
PALE_COLOUR_CONTRAST = 0.6
# ... but a standing neighbour's shadow darkens a white pawn towards a cream track's look (a dim
# lamp: t 0.1-0.5) while the pale pattern rules, judged out of the shadow's reach, still name a
# piece there and leave it unknown for the colour's doubt (vision.pale, "contested"). A shadow
# only darkens: an empty field it falls on comes to t below 0 (the evening board's holes beside
# pegs: -0.07 to -0.5). So a contested field is read empty only at t <= 0, and as the pale piece at
# t of at least this (and its sigma_t).
SHADED_PALE_T = 0.1
# Calibration warns that the light is too low when one picture of the empty board's seat-coloured
# fields has a median sigma_t above this: the noisier half of them then reaches OWN_MAX_SIGMA or
# leaves pieces near their margin, and a reading leaves several unknown (a well lit board: 0.05).
OWN_WARN_SIGMA = 0.12

# --- the top card of a pile (vision.card_outline) and reading it (vision.cards) ---------------
# Cards are put down turned by up to about 25 degrees; the outline is searched a little beyond.
CARD_MAX_ANGLE_DEG = 36.0
CARD_ANGLE_BIN_DEG = 1.5  # an edge pixel's direction is good to a few degrees: it votes in 3 bins
# An edge is a pixel whose gradient is this many times the empty zone's typical (median) one:
# the board's grain and a dim picture's noise stay below, and so does most of it where a card
# lies on a card (white on white: only the thin shadow of its edge tells it).
CARD_EDGE_NOISE_SIGMAS = 1.6
CARD_SIZE_SLACK = 0.015  # a bent card looks a little shorter; a card's shadow edge lies 1-3 mm off its own
CARD_CANDIDATES = 40  # rectangles walked side by side (the strongest line pairs over all angles)
CARD_PEAKS = 5  # per angle, line pairs of each kind tried: a card's printed frame and the cards beneath add lines
CARD_NEAR_PX = 2.5  # a side's point is supported by an edge this near across it (zone pixels)
CARD_SIDE_INSET = 0.08  # the corners are rounded: each side is walked without its ends
# A white card on white cards may show one side not at all: rectangles of three seen sides and the
# fourth a card's size away are tried too (the strongest of such line pairs, and per angle this many
# of each kind).
CARD_ONE_CANDIDATES = 24
CARD_ONE_PEAKS = 3
CARD_DISTINCT_PX = 6.0  # outlines whose centres lie this far apart (zone pixels, 3 mm) are different ones
# The top card's least complete side must be walked this far along with an edge beside it: a card
# under another has a side (or most of one) hidden, a hand over the card's edge hides part of it.
CARD_MIN_SUPPORT = 0.5
# Of the outlines that complete, this many distinct ones are read, and the one whose inside looks most
# like a card's big symbol is taken (vision.pile_cards).
CARD_OUTLINES = 8
# Something lies on the zone once this share of a card's area differs from the empty zone.
CARD_PRESENT_AREA = 0.4
# A card is named only if its symbol and its corner index both match it this well ... (a top card's
# outline found right gives 0.8-0.95 for both; an outline a few mm off, which once read a 6 lying
# upside down as the 9 its big symbol then looks like, gave the corner 0.5-0.7)
CARD_MIN_SYMBOL = 0.75
CARD_MIN_CORNER = 0.75
# ... the symbol ahead of every other card's by this much (normalised correlation), and the card's
# own index matching within this of any other card's index (the indexes of a 12 and a 13 correlate
# within 0.01-0.02 in a 1080p picture, so the index mostly only has to agree). On the tuning seeds no
# card whose symbol led but whose card was not the one lying there passed these four together.
CARD_SYMBOL_MARGIN = 0.05
CARD_CORNER_MARGIN = 0.01
# The symbol and the index are weighed together: the card's own index may trail another card's by
# CARD_CORNER_PER_SYMBOL times the lead its symbol has over that card's (at least CARD_CORNER_MARGIN,
# at most CARD_CORNER_MARGIN_MAX). Read from the Pi camera's full-resolution crop the blurred
# indexes of 5, 8, 6, 3 and 9 (or of the blue special cards) correlate within 0.01-0.05 of each
# other, while the big symbols of a square 8 and a round 6 differ by 0.3-0.6: an index a hair behind
# another card's asked about 44 of 1,600 piles (the tuning seeds, and seeds 4-5 read to check) that
# symbol and index now name right; none named wrong, before or after.
CARD_CORNER_PER_SYMBOL = 0.2
CARD_CORNER_MARGIN_MAX = 0.05
CARD_STILL_MM = 2.0  # frames whose card lies within this of the first are combined (the card lies still)
