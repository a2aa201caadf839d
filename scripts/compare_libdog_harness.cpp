// Prints libdog's outcome sets for the positions on standard input, in the normalised form
// scripts/compare_libdog.py writes ours in. Built by scripts/compare_libdog.sh against a libdog
// checkout the user gives (libdog is GPL-3.0: it is compiled in a temporary directory, never
// copied into this repository). Input, one query per line, tab-separated:
//     id  board  player  cards
// board in libdog's notation ("P0*F1|P14P16|F0F3|P36P48*"), cards as libdog's letters
// ("A23456789TJQKX"). Output, one line per card: id  card  outcome outcome ...  where an
// outcome lists each player's pieces sorted ("K", "P<i>", "F<i>"; a piece on its own start
// field that does not block carries a "'"), players separated by "|"; outcomes sorted, no
// duplicates, "-" when the card has no play.
#include <libdog/libdog.hpp>

#include <algorithm>
#include <iostream>
#include <set>
#include <sstream>
#include <string>
#include <vector>

using namespace libdog;

static std::string normalised(const BoardState& board) {
    std::string out;
    for (int player = 0; player < PLAYER_COUNT; player++) {
        std::vector<std::string> tokens;
        for (int i = 0; i < PIECE_COUNT; i++) {
            const Piece& piece = board.pieces[player][i];
            std::string t;
            if (piece.position.area == Kennel) {
                t = "K";
            } else if (piece.position.area == Finish) {
                t = "F" + std::to_string(piece.position.idx);
            } else {
                t = "P" + std::to_string(piece.position.idx);
                if (piece.position.idx == get_start_path_idx(player) && !piece.blocking) t += "'";
            }
            tokens.push_back(t);
        }
        std::sort(tokens.begin(), tokens.end());
        if (player) out += "|";
        for (std::size_t i = 0; i < tokens.size(); i++) out += (i ? "," : "") + tokens[i];
    }
    return out;
}

int main() {
    std::string line;
    while (std::getline(std::cin, line)) {
        if (line.empty()) continue;
        std::stringstream ss(line);
        std::string id, board, player_text, cards;
        std::getline(ss, id, '\t');
        std::getline(ss, board, '\t');
        std::getline(ss, player_text, '\t');
        std::getline(ss, cards, '\t');
        int player = std::stoi(player_text);
        DogGame game(false, false, false, false);  // no Canadian rule; no turn, hand or exchange checks
        game.load_board(board);
        int mover = game.switch_to_team_mate_if_done(player);
        for (char c : cards) {
            Card card = card_from_string(std::string(1, c));
            std::set<std::string> outcomes;
            for (const ActionVar& action : game.possible_actions_for_card(mover, card, false)) {
                DogGame copy = game;
                if (copy.play(mover, action, true, false)) outcomes.insert(normalised(copy.board_state));
            }
            std::cout << id << '\t' << c << '\t';
            if (outcomes.empty()) std::cout << '-';
            bool first = true;
            for (const std::string& o : outcomes) {
                std::cout << (first ? "" : " ") << o;
                first = false;
            }
            std::cout << '\n';
        }
    }
    return 0;
}
