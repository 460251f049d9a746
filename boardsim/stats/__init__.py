"""Statistics on the ground floor: intervals for rates and means (deal-level, Wilson) and Bradley-Terry
ratings.  They read arrays and tables only, so the games, the run layer and the analyses all import them and
they import nothing of boardsim."""
