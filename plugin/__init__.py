"""mafia-autohost: an automatic host for sport-mafia games in a video call."""
